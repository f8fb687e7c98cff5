package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.FateAt;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.jdbc.history.FireFate;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryPage;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Stateless, any thread: answers a {@link HistorySearch} from the run history in the database,
 * one query per page ({@link RunHistory#page}), two for the fate at an instant ({@link
 * RunHistory#fateAt}). The time window is over nominal fires, as for local jobs. The cursor is
 * {@code C} and the history's own cursor (a record's id): later pages hold records written earlier.
 * A record's id is {@code C} and its id. A page leaves stack traces out; the fate at an instant
 * ({@code at}) and one record read by its id carry their own.
 */
final class JdbcHistorySearch {

    static final String SOURCE = "CLUSTER";

    private JdbcHistorySearch() {}

    static HistoryPage search(RunHistory history, HistorySearch search) {
        String job = search.job();
        Instant at = search.at();
        if (job != null && at != null) {
            FateAt fate = fate(history.fateAt(job, at));
            return new HistoryPage(SOURCE, fate.listed(), null, Map.of(), fate);
        }
        RunHistoryQuery query = RunHistoryQuery.all().limit(search.limit());
        if (job != null) {
            query = query.job(job);
        }
        if (search.task() != null) {
            query = query.task(search.task());
        }
        if (search.instance() != null) {
            query = query.instance(search.instance());
        }
        for (String outcome : search.outcomes()) {
            query = query.outcome(RunOutcome.valueOf(outcome), query.outcomes().toArray(RunOutcome[]::new));
        }
        for (String reason : search.skipReasons()) {
            query = query.skipReason(
                    SkipReason.valueOf(reason), query.skipReasons().toArray(SkipReason[]::new));
        }
        if (search.from() != null) {
            query = query.firesFrom(search.from());
        }
        if (search.to() != null) {
            query = query.firesTo(search.to());
        }
        Long cursor = cursor(search.cursor());
        if (cursor != null) {
            query = query.cursor(cursor);
        }
        RunHistoryPage page = history.page(query);
        Long next = page.nextCursor();
        return new HistoryPage(
                SOURCE,
                page.records().stream().map(run -> view(run, false)).toList(),
                next == null ? null : "C" + next);
    }

    /** The records covering the instant, and the nearest before and after it, each with its stack trace. */
    private static FateAt fate(FireFate fate) {
        RunRecord before = fate.before();
        RunRecord after = fate.after();
        return FateAt.of(
                fate.at(),
                false,
                fate.covering().stream().map(record -> view(record, true)).toList(),
                before == null ? null : view(before, true),
                after == null ? null : view(after, true));
    }

    /**
     * Returns one record whole, stack trace included, job's or task's, in one query (the page that
     * starts at it); null when the history holds no record of that id.
     */
    static @Nullable RunView record(RunHistory history, long id) {
        if (id < 1 || id == Long.MAX_VALUE) {
            return null;
        }
        RunRecord found = history.find(id);
        return found == null ? null : view(found, true);
    }

    private static @Nullable Long cursor(@Nullable String cursor) {
        if (cursor == null) {
            return null;
        }
        try {
            if (cursor.startsWith("C")) {
                long id = Long.parseLong(cursor.substring(1));
                if (id >= 1) {
                    return id;
                }
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                "cursor '" + cursor + "' is not one this endpoint gave for the run history; start without one");
    }

    static RunView view(RunRecord run, boolean trace) {
        SkipReason reason = run.skipReason();
        return new RunView(
                run.kind().name(),
                run.name(),
                run.taskKey(),
                run.fireAt().toString(),
                run.instance(),
                run.skipped() ? null : run.startedAt().toString(),
                run.duration().toMillis(),
                run.outcome().name(),
                run.attempt(),
                run.error(),
                reason == null ? null : reason.name(),
                run.catchUp(),
                trace ? run.stackTrace() : null,
                Objects.requireNonNull(run.fireUntil()).toString(),
                run.fires(),
                "C" + run.id());
    }
}
