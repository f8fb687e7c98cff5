package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Stateless, any thread: answers a {@link HistorySearch} from the run history in the database, in
 * one query per page (two for a search {@code at} an instant). The cursor is {@code C}, the start
 * and the id of the last record of the page before: later pages hold records that started earlier.
 */
final class JdbcHistorySearch {

    static final String SOURCE = "CLUSTER";

    private JdbcHistorySearch() {}

    static HistoryPage search(RunHistory history, HistorySearch search) {
        RunHistoryQuery query = RunHistoryQuery.all();
        if (search.job() != null) {
            query = query.job(search.job());
        }
        if (search.task() != null) {
            query = query.task(search.task());
        }
        if (search.instance() != null) {
            query = query.instance(search.instance());
        }
        Set<RunOutcome> outcomes = EnumSet.noneOf(RunOutcome.class);
        for (RunOutcome outcome : RunOutcome.values()) {
            if (search.admits(outcome.name(), null)) {
                outcomes.add(outcome);
            }
        }
        if (outcomes.isEmpty()) {
            // Only skips asked for: the history holds runs.
            return new HistoryPage(SOURCE, List.of(), null);
        }
        if (outcomes.size() < RunOutcome.values().length) {
            RunOutcome[] rest = outcomes.toArray(RunOutcome[]::new);
            query = query.outcome(rest[0], java.util.Arrays.copyOfRange(rest, 1, rest.length));
        }
        if (search.from() != null) {
            query = query.from(search.from());
        }
        if (search.at() != null) {
            return new HistoryPage(SOURCE, nearest(history, query, search.at()), null);
        }
        Cursor cursor = Cursor.parse(search.cursor());
        Instant to = search.to();
        if (cursor != null && (to == null || cursor.startedAt().isBefore(to))) {
            to = cursor.startedAt().plusNanos(1);
        }
        if (to != null) {
            query = query.to(to);
        }
        // A few more than the page, for records that started at the cursor's instant.
        List<RunRecord> records = history.find(query.limit(search.limit() + 1 + Cursor.SAME_INSTANT));
        List<RunView> page = new ArrayList<>();
        RunRecord last = null;
        for (RunRecord record : records) {
            if (cursor != null && !cursor.before(record)) {
                continue;
            }
            if (page.size() == search.limit()) {
                return new HistoryPage(SOURCE, page, Cursor.after(last));
            }
            page.add(view(record));
            last = record;
        }
        return new HistoryPage(SOURCE, page, null);
    }

    private static List<RunView> nearest(RunHistory history, RunHistoryQuery query, Instant at) {
        List<RunView> out = new ArrayList<>(2);
        history.find(query.from(at.plusNanos(1)).limit(HistorySearch.MAX_LIMIT)).stream()
                .reduce((first, second) -> second)
                .ifPresent(after -> out.add(view(after)));
        history.find(query.to(at.plusNanos(1)).limit(1)).forEach(before -> out.add(view(before)));
        return out;
    }

    static RunView view(RunRecord run) {
        return new RunView(
                run.kind().name(),
                run.name(),
                run.taskKey(),
                run.fireAt().toString(),
                run.instance(),
                run.startedAt().toString(),
                run.duration().toMillis(),
                run.outcome().name(),
                run.attempt(),
                run.error());
    }

    /** Where a page starts: after the record that started then, with that id. */
    private record Cursor(Instant startedAt, long id) {

        /** Records that may share one start instant, read beyond a page to pass the cursor's. */
        static final int SAME_INSTANT = 16;

        boolean before(RunRecord record) {
            int byStart = record.startedAt().compareTo(startedAt);
            return byStart < 0 || (byStart == 0 && record.id() < id);
        }

        static String after(@Nullable RunRecord last) {
            return last == null ? null : "C" + last.startedAt() + "/" + last.id();
        }

        static @Nullable Cursor parse(@Nullable String text) {
            if (text == null) {
                return null;
            }
            int slash = text.lastIndexOf('/');
            try {
                if (text.startsWith("C") && slash > 1) {
                    return new Cursor(
                            Instant.parse(text.substring(1, slash)), Long.parseLong(text.substring(slash + 1)));
                }
            } catch (DateTimeParseException | NumberFormatException e) {
                // refused below
            }
            throw new IllegalArgumentException(
                    "cursor '" + text + "' is not one this endpoint gave for the run history; start without one");
        }
    }
}
