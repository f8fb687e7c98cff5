package io.timedjobs.scheduler;

/**
 * Sees every execution of every task: how late it started, how long it ran and how it ended. This
 * is the hook that metrics are built on.
 *
 * <p>It is called on the worker thread right after each execution, so it must be fast and must not
 * block. The scheduler allocates nothing to call it. An exception thrown by a listener ends the
 * worker thread (the pool replaces it) and reaches the thread's uncaught-exception handler.
 *
 * <p>An execution that a {@link RunGate} skipped is not reported.
 */
@FunctionalInterface
public interface ExecutionListener {

    /** How an execution ended. */
    enum Outcome {
        /** The task returned normally. */
        SUCCEEDED,
        /** The task threw. */
        FAILED
    }

    /**
     * Called once per execution.
     *
     * @param latenessNanos start time minus due time, in {@link Ticker} nanoseconds; never negative
     * @param durationNanos how long the task ran, in {@link Ticker} nanoseconds
     * @param outcome how the execution ended
     */
    void onExecution(long latenessNanos, long durationNanos, Outcome outcome);

    /**
     * Called once per execution, with the work that ran; this is the method the scheduler calls.
     * The default ignores the work and calls {@link #onExecution(long, long, Outcome)}. A listener
     * that keeps figures per job overrides it and recognises its own work by type, without a map
     * lookup or an allocation.
     *
     * @param work the {@code Runnable} or {@code Callable} as it was submitted; the task's future
     *     if a cancel had already let go of it when the execution started
     * @param latenessNanos start time minus due time, in {@link Ticker} nanoseconds; never negative
     * @param durationNanos how long the task ran, in {@link Ticker} nanoseconds
     * @param outcome how the execution ended
     */
    default void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
        onExecution(latenessNanos, durationNanos, outcome);
    }

    /** Returns a listener that ignores every event. */
    static ExecutionListener none() {
        return NoExecutionListener.INSTANCE;
    }
}

enum NoExecutionListener implements ExecutionListener {
    INSTANCE;

    @Override
    public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {}
}
