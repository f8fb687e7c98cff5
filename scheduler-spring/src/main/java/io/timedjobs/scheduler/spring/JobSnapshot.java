package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable, any thread: the figures of one repeating job at one moment.
 *
 * @param name bean and method for {@code @Scheduled} methods
 * @param schedule the schedule in words
 * @param sharedByInstances whether several instances share its fires
 * @param paused whether its runs are skipped
 * @param nextRun when it runs next on this scheduler, or null if it will not
 * @param lastRun when its last run started, or null before the first
 * @param lastOutcome how its last run ended, or null before the first
 * @param lastDurationNanos how long its last run took
 * @param runs runs so far
 * @param failures runs that threw
 * @param recentLatenessNanos lateness of its most recent runs, oldest first
 * @param p50LatenessNanos median of those
 * @param p99LatenessNanos 99th percentile of those
 * @param maxLatenessNanos largest of those
 */
public record JobSnapshot(
        String name,
        String schedule,
        boolean sharedByInstances,
        boolean paused,
        @Nullable Instant nextRun,
        @Nullable Instant lastRun,
        @Nullable Outcome lastOutcome,
        long lastDurationNanos,
        long runs,
        long failures,
        long[] recentLatenessNanos,
        long p50LatenessNanos,
        long p99LatenessNanos,
        long maxLatenessNanos) {}
