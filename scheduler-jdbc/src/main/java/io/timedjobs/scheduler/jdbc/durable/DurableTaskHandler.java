package io.timedjobs.scheduler.jdbc.durable;

/**
 * Implemented by the application; called on a worker thread of the in-memory engine, one task at a
 * time per call, possibly on several threads at once. Runs the durable tasks scheduled under its name
 * (in Spring, its bean name).
 *
 * <p>The payload is read only as {@link #payloadType()}: a String payload as it was stored, anything
 * else as JSON through the application's mapper. No class name is stored with a task.
 *
 * @param <T> the payload type
 */
public interface DurableTaskHandler<T> {

    /** The type every payload of this handler is read as. */
    Class<T> payloadType();

    /**
     * Whether a task of this handler may be scheduled without a payload ({@code null}), which {@link
     * #handle} then gets as a null {@link DurableTask#payload()}. By default only a handler of {@code
     * String} (or {@code Void}) payloads accepts one; a handler of any other type gets an {@link
     * IllegalArgumentException} at {@code schedule} time unless it overrides this to return true.
     */
    default boolean acceptsNullPayload() {
        Class<T> type = payloadType();
        return type == String.class || type == Void.class;
    }

    /**
     * Runs one task. Returning completes it (a one-off task's row is deleted, a recurring task waits for
     * its next fire); throwing fails this attempt, which is retried with backoff up to the maximum
     * number of attempts.
     *
     * @param task the task, its payload and its idempotency key
     * @throws Exception to fail this attempt
     */
    void handle(DurableTask<T> task) throws Exception;

    /**
     * Whether {@link #handle} runs inside the transaction that records the completion, so that its own
     * writes on the same database commit with the completion, or roll back when the completion is
     * refused (another instance took the task over). Off by default: the handler runs outside any
     * transaction and the completion follows it.
     */
    default boolean runsInCompletionTransaction() {
        return false;
    }
}
