package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterJobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterView;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the database part of the {@link TimedJobsView}, read at most once per period for
 * every reader: each open page refreshes every two seconds, and the endpoint may be asked as often,
 * so that without it the database would answer each of them. One reader reads while the others
 * wait and then share its answer; a change made through the report ({@link #forget()}) is seen by
 * the next read.
 */
final class ClusterReadCache {

    /** What the database said, when, and whether clustered jobs were asked about. */
    record Reading(
            long atNanos,
            boolean anyClustered,
            Set<String> pausedEverywhere,
            Map<String, ClusterJobView> clustered,
            ClusterView view) {}

    private final ClusterReport report;
    private final long keptNanos;
    private final LongSupplier nanoTime;

    /** The latest reading; null before the first and after a change. Guarded by this. */
    private @Nullable Reading last;

    /**
     * @param kept how long a reading serves; zero reads anew each time
     * @throws IllegalArgumentException if {@code kept} is negative
     */
    ClusterReadCache(ClusterReport report, Duration kept, LongSupplier nanoTime) {
        this.report = Objects.requireNonNull(report, "report");
        if (kept.isNegative()) {
            throw new IllegalArgumentException("The cluster's reads are kept for zero or more, got " + kept);
        }
        this.keptNanos = kept.toNanos();
        this.nanoTime = nanoTime;
    }

    /**
     * Returns the latest reading while it is younger than the period (and asked the same about
     * clustered jobs), else reads the database: paused jobs and clustered jobs when {@code
     * anyClustered}, then instances, durable tasks and the history.
     */
    synchronized Reading read(boolean anyClustered) {
        long now = nanoTime.getAsLong();
        Reading reading = last;
        if (reading != null && reading.anyClustered() == anyClustered && now - reading.atNanos() < keptNanos) {
            return reading;
        }
        Set<String> paused = anyClustered ? report.pausedJobs() : Set.of();
        Map<String, ClusterJobView> clustered = anyClustered ? report.clusteredJobs() : Map.of();
        reading = new Reading(now, anyClustered, paused, clustered, report.view());
        last = reading;
        return reading;
    }

    /** Drops the latest reading, after a change made through the report. */
    synchronized void forget() {
        last = null;
    }
}
