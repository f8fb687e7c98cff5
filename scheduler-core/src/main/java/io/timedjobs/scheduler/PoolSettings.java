package io.timedjobs.scheduler;

import java.time.Clock;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * Immutable, made once by the public builder (which validates every value) and read by the {@link
 * WorkerPool} it configures: every setting of a pool.
 *
 * @param tickerAdvancedByHand the ticker does not {@linkplain Ticker#movesWithRealTime() move with
 *     real time}: the leader never waits timed, it waits for the ticker's advance to wake it
 * @param taskThreadFactory makes a thread of its own for each due task (a virtual thread); null to
 *     run each task on the worker that took it
 * @param concurrencyLimit with a task thread factory, the most tasks running at once; 0 for no
 *     limit
 * @param runGate called around every execution; null for none
 * @param oneShotErrorHandler sees each failure of a one-shot task before its future; null to leave
 *     the failure to the future alone
 */
record PoolSettings(
        String name,
        int poolSize,
        ThreadFactory threadFactory,
        Ticker ticker,
        boolean tickerAdvancedByHand,
        Clock clock,
        MisfirePolicy misfirePolicy,
        TaskErrorHandler errorHandler,
        ExecutionListener listener,
        boolean executeExistingDelayedTasksAfterShutdown,
        boolean continueExistingPeriodicTasksAfterShutdown,
        boolean keepRepeatingAfterFailure,
        @Nullable ThreadFactory taskThreadFactory,
        int concurrencyLimit,
        @Nullable RunGate runGate,
        @Nullable TaskErrorHandler oneShotErrorHandler) {}
