package io.timedjobs.scheduler.jdbc.durable;

/**
 * Immutable; any thread. Thrown when a durable task cannot be scheduled, rescheduled, cancelled or
 * queried because the database refused or could not be reached; the cause says why. Inside a
 * transaction it rolls the transaction back like any other runtime exception.
 */
public class DurableTaskException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public DurableTaskException(String message, Throwable cause) {
        super(message, cause);
    }
}
