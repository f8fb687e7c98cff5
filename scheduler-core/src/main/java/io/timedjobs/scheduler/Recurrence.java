package io.timedjobs.scheduler;

import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A rule that computes the next execution time of a repeating task from what happened so far. Cron
 * expressions and Spring {@code Trigger}s plug into the engine through this interface.
 *
 * <p>Times here are wall-clock instants from the scheduler's {@link Clock}. The scheduler never
 * starts a task before the instant the rule returned, even when the wall clock and the monotonic
 * {@link Ticker} drift apart: a task that comes due early by the ticker waits out the difference.
 *
 * @see LeaderFollowerScheduler#schedule(Runnable, Recurrence)
 */
@FunctionalInterface
public interface Recurrence {

    /**
     * Computes the next execution time.
     *
     * @param context the times of the previous execution, all {@code null} before the first one
     * @return the next execution time, or {@code null} when the task should not run again
     */
    @Nullable
    Instant nextExecution(Context context);

    /** What a {@link Recurrence} knows of the previous execution of its task. */
    interface Context {

        /** Returns when the previous execution was due, or {@code null} before the first one. */
        @Nullable
        Instant lastScheduled();

        /** Returns when the previous execution started, or {@code null} before the first one. */
        @Nullable
        Instant lastStarted();

        /** Returns when the previous execution completed, or {@code null} before the first one. */
        @Nullable
        Instant lastCompleted();

        /** Returns the scheduler's wall clock. */
        Clock clock();
    }
}
