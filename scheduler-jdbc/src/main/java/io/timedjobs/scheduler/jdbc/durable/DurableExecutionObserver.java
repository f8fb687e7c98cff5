package io.timedjobs.scheduler.jdbc.durable;

import org.jspecify.annotations.Nullable;

/**
 * Implementations are thread-safe; called on the worker that runs a durable task. Wraps each execution
 * of a handler, for tracing and metrics (the auto-configuration wraps it in a Micrometer Observation
 * when an {@code ObservationRegistry} is present). It must call {@code execution.run()} exactly once
 * and let its exception through.
 */
@FunctionalInterface
public interface DurableExecutionObserver {

    /** Runs one execution of {@code task}. */
    void observe(DurableTask<?> task, Execution execution) throws Exception;

    /**
     * Runs one execution of {@code task}, which was scheduled under the trace context {@code
     * traceParent} (a W3C {@code traceparent}; null when none was stored). The engine calls this one;
     * by default it ignores the context.
     */
    default void observe(DurableTask<?> task, @Nullable String traceParent, Execution execution) throws Exception {
        observe(task, execution);
    }

    /** One execution of a handler. */
    @FunctionalInterface
    interface Execution {
        void run() throws Exception;
    }

    /** Runs each execution as it is. */
    static DurableExecutionObserver none() {
        return (task, execution) -> execution.run();
    }
}
