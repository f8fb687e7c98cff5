package io.timedjobs.scheduler.jdbc.durable;

import org.jspecify.annotations.Nullable;

/**
 * Implementations are thread-safe; called by {@link DurableTasks} on the thread that schedules a task.
 * Wraps each {@code schedule} and {@code scheduleRecurring} call, for tracing: it hands the write the
 * W3C {@code traceparent} of the current trace, which is stored with the task so that its run can
 * continue that trace (the auto-configuration does it with a Micrometer Observation when a tracer is
 * present). It must call {@code write} exactly once and let its exception through.
 */
@FunctionalInterface
public interface DurableScheduleObserver {

    /** Runs one scheduling call of a task of {@code handler} under {@code key}; returns its id. */
    long observe(String handler, String key, Write write);

    /** The write of one task, given the trace context to store with it. */
    @FunctionalInterface
    interface Write {

        /**
         * Writes the task; {@code traceParent} is a W3C {@code traceparent} value, or null for none
         * (anything else is not stored).
         */
        long run(@Nullable String traceParent);
    }

    /** Writes each task without a trace context. */
    static DurableScheduleObserver none() {
        return (handler, key, write) -> write.run(null);
    }
}
