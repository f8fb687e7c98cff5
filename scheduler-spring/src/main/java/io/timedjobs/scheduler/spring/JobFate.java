package io.timedjobs.scheduler.spring;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable, any thread: what became of one fire of a repeating job on this instance, kept in
 * memory by its {@link TrackedJob} (the latest {@value TrackedJob#FATES_KEPT} per job).
 *
 * @param sequence increasing in the order this scheduler recorded its fates, across all jobs
 * @param fireAt the fire's nominal instant: when the run was due (its start less its lateness), or
 *     when a skipped fire came due (the first of a range of skipped fires)
 * @param fireUntil the last fire a skip covers: consecutive fires skipped for one reason make one
 *     fate, so a long pause keeps the runs before it; {@code fireAt} for a run
 * @param fires how many fires the fate covers: 1 for a run, 1 or more for a skip
 * @param startedAt when the run started; null for a skip
 * @param durationNanos how long the run took; 0 for a skip
 * @param outcome how the fire ended
 * @param skipReason why it did not run; null unless {@link Outcome#SKIPPED}
 * @param error the exception's class and message, cut to {@value #ERROR_LENGTH} characters; null
 *     unless {@link Outcome#FAILED}
 * @param stackTrace the exception's stack trace, cut to {@value #STACK_TRACE_LENGTH} characters;
 *     null unless {@link Outcome#FAILED}
 */
public record JobFate(
        long sequence,
        Instant fireAt,
        Instant fireUntil,
        long fires,
        @Nullable Instant startedAt,
        long durationNanos,
        Outcome outcome,
        @Nullable SkipReason skipReason,
        @Nullable String error,
        @Nullable String stackTrace) {

    /** Characters of an exception's class and message kept at most. */
    public static final int ERROR_LENGTH = 500;

    /** Characters of an exception's stack trace kept at most. */
    public static final int STACK_TRACE_LENGTH = 4000;

    /** How a fire ended. */
    public enum Outcome {
        /** It ran and returned normally. */
        SUCCEEDED,
        /** It ran and threw. */
        FAILED,
        /** It did not run; the {@link SkipReason} says why. */
        SKIPPED
    }

    /** Why a fire did not run on this instance. */
    public enum SkipReason {
        /** The job was paused (through the endpoint, or {@link TrackedJob#pause()}). */
        PAUSED,
        /**
         * The scheduler was stopping: the fire came due while its lifecycle was stopped, and the
         * shutdown interrupted its wait ({@code shutdownNow}, or the task's {@code cancel(true)});
         * or the scheduler's shutdown dropped it (the job's next fire when it shut down, by the
         * shutdown policies or at the end of the await period), kept at its nominal instant.
         */
        STOPPING,
        /**
         * The job's previous fire was still in hand on this instance when the fire came due, and the
         * schedule passed over it: a cron job's next fire is the first after its run ends, and a
         * fixed-rate job under the misfire policy {@code SKIP} drops the fires its run outlasted.
         * Kept at the fires' nominal instants, after the run that outlasted them.
         */
        STILL_RUNNING
    }
}
