package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.spring.JobFate;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Stateless, any thread: answers a {@link HistorySearch} from the fates local jobs keep in memory
 * ({@link TrackedJob#fates()}), on this instance only. The cursor is {@code L} and the sequence of
 * the last fate of the page before: later pages hold older fates. A page leaves stack traces out;
 * the fate at an instant ({@code at}) carries its own.
 */
final class LocalFates {

    static final String SOURCE = "LOCAL";

    private LocalFates() {}

    static HistoryPage search(List<TrackedJob> jobs, String instance, HistorySearch search) {
        long before = cursor(search.cursor());
        List<JobFate> fates = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (search.task() != null
                || (search.instance() != null && !search.instance().equals(instance))) {
            return new HistoryPage(SOURCE, List.of(), null);
        }
        for (TrackedJob job : jobs) {
            if (search.job() != null && !search.job().equals(job.name())) {
                continue;
            }
            for (JobFate fate : job.fates()) {
                fates.add(fate);
                names.add(job.name());
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < fates.size(); i++) {
            order.add(i);
        }
        // Latest recorded first: the order of the fires, as one job's fires are recorded in order.
        order.sort(
                Comparator.comparingLong((Integer i) -> fates.get(i).sequence()).reversed());
        if (search.at() != null) {
            return new HistoryPage(SOURCE, nearest(search.at(), order, fates, names, instance), null);
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
        return new HistoryPage(SOURCE, page, more ? "L" + last : null);
    }

    /** The fate whose fire is at or before the instant (it covers it), and the next one after. */
    private static List<RunView> nearest(
            Instant at, List<Integer> latestFirst, List<JobFate> fates, List<String> names, String instance) {
        @Nullable Integer before = null;
        @Nullable Integer after = null;
        for (int i : latestFirst) {
            if (fates.get(i).fireAt().isAfter(at)) {
                after = i;
            } else {
                before = i;
                break;
            }
        }
        List<RunView> out = new ArrayList<>(2);
        if (after != null) {
            out.add(view(names.get(after), instance, fates.get(after), true));
        }
        if (before != null) {
            out.add(view(names.get(before), instance, fates.get(before), true));
        }
        return out;
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
                fate.fires());
    }
}
