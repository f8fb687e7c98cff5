package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.FateAt;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.spring.JobFate;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Stateless, any thread: answers a {@link HistorySearch} from the fates local jobs keep in memory
 * ({@link TrackedJob#fates()}), on this instance only. The cursor is {@code L} and the sequence of
 * the last fate of the page before: later pages hold older fates; a fate's id is {@code L} and its
 * own sequence. A page leaves stack traces out; the fate at an instant ({@code at}) and one fate
 * read by its id carry their own. Each answer names, per job, from which fire the memory still
 * tells every fire ({@link HistoryPage#knownFrom()}).
 */
final class LocalFates {

    static final String SOURCE = "LOCAL";

    private LocalFates() {}

    /**
     * How far a local run's nominal fire may lie from an instant it covers: a run's fire is read from
     * its start less its lateness, to within a millisecond or so of the instant it was due.
     */
    static final Duration RUN_COVERS = Duration.ofMillis(5);

    static HistoryPage search(List<TrackedJob> jobs, String instance, HistorySearch search) {
        long before = cursor(search.cursor());
        List<JobFate> fates = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (search.task() != null
                || (search.instance() != null && !search.instance().equals(instance))) {
            return new HistoryPage(SOURCE, List.of(), null);
        }
        Map<String, String> knownFrom = new LinkedHashMap<>();
        for (TrackedJob job : jobs) {
            if (search.job() != null && !search.job().equals(job.name())) {
                continue;
            }
            for (JobFate fate : job.fates()) {
                fates.add(fate);
                names.add(job.name());
            }
            Instant known = job.fatesKnownFrom();
            if (known != null) {
                knownFrom.put(job.name(), known.toString());
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < fates.size(); i++) {
            order.add(i);
        }
        // Latest recorded first: the order of the fires, as one job's fires are recorded in order.
        order.sort(
                Comparator.comparingLong((Integer i) -> fates.get(i).sequence()).reversed());
        Instant at = search.at();
        if (at != null) {
            String known = search.job() == null ? null : knownFrom.get(search.job());
            FateAt fate = fateAt(at, known == null ? null : Instant.parse(known), order, fates, names, instance);
            return new HistoryPage(SOURCE, fate.listed(), null, knownFrom, fate);
        }
        List<RunView> page = new ArrayList<>();
        long last = 0;
        boolean more = false;
        for (int i : order) {
            JobFate fate = fates.get(i);
            if (fate.sequence() >= before || !admits(search, fate)) {
                continue;
            }
            if (page.size() == search.limit()) {
                more = true;
                break;
            }
            page.add(view(names.get(i), instance, fate, false));
            last = fate.sequence();
        }
        return new HistoryPage(SOURCE, page, more ? "L" + last : null, knownFrom, null);
    }

    /** Returns the fate of that sequence whole, stack trace included; null when memory holds none. */
    static @Nullable RunView record(List<TrackedJob> jobs, String instance, long sequence) {
        for (TrackedJob job : jobs) {
            for (JobFate fate : job.fates()) {
                if (fate.sequence() == sequence) {
                    return view(job.name(), instance, fate, true);
                }
            }
        }
        return null;
    }

    /**
     * The fates covering the instant (its fire, or a range of skipped fires that holds it), the
     * latest one wholly before it and the earliest wholly after; unknown when none covers it and it
     * lies before what the memory still keeps.
     */
    private static FateAt fateAt(
            Instant at,
            @Nullable Instant knownFrom,
            List<Integer> latestFirst,
            List<JobFate> fates,
            List<String> names,
            String instance) {
        List<RunView> covering = new ArrayList<>(1);
        @Nullable RunView before = null;
        @Nullable RunView after = null;
        for (int i : latestFirst) {
            JobFate fate = fates.get(i);
            RunView view = view(names.get(i), instance, fate, true);
            if (fate.fireAt().minus(RUN_COVERS).isAfter(at)) {
                after = view;
            } else if (fate.fireUntil().plus(RUN_COVERS).isBefore(at)) {
                before = view;
                break;
            } else {
                covering.add(view);
            }
        }
        boolean unknown = covering.isEmpty() && knownFrom != null && at.isBefore(knownFrom);
        return FateAt.of(at, unknown, covering, before, after);
    }

    private static boolean admits(HistorySearch search, JobFate fate) {
        Instant from = search.from();
        Instant to = search.to();
        // a range of skipped fires is in the window when any of its fires is
        if ((from != null && fate.fireUntil().isBefore(from))
                || (to != null && !fate.fireAt().isBefore(to))) {
            return false;
        }
        JobFate.SkipReason reason = fate.skipReason();
        return search.admits(fate.outcome().name(), reason == null ? null : reason.name());
    }

    private static long cursor(@Nullable String cursor) {
        if (cursor == null) {
            return Long.MAX_VALUE;
        }
        try {
            if (cursor.startsWith("L")) {
                return Long.parseLong(cursor.substring(1));
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                "cursor '" + cursor + "' is not one this endpoint gave for a local job's fates; start without one");
    }

    static RunView view(String job, String instance, JobFate fate, boolean trace) {
        Instant started = fate.startedAt();
        JobFate.SkipReason reason = fate.skipReason();
        return new RunView(
                "JOB",
                job,
                null,
                fate.fireAt().toString(),
                instance,
                started == null ? null : started.toString(),
                fate.durationNanos() / 1_000_000L,
                fate.outcome().name(),
                1,
                fate.error(),
                reason == null ? null : reason.name(),
                false,
                trace ? fate.stackTrace() : null,
                fate.fireUntil().toString(),
                fate.fires(),
                "L" + fate.sequence());
    }
}
