package io.timedjobs.scheduler.jdbc.durable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Immutable, thread-safe; used by {@link DurableTaskRunner} only, on the engine's workers. One call
 * of a handler, apart from the claims and outcomes around it: the task it is given (its payload
 * read by the codec), the call through the execution observer (a checked exception carried out of
 * a transaction callback), and the log line of a failed attempt.
 */
final class HandlerCall {

    private static final Log logger = LogFactory.getLog(DurableTaskRunner.class);

    private final PayloadCodec codec;
    private final DurableExecutionObserver observer;
    private final DurableTaskSettings settings;

    HandlerCall(PayloadCodec codec, DurableExecutionObserver observer, DurableTaskSettings settings) {
        this.codec = codec;
        this.observer = observer;
        this.settings = settings;
    }

    /**
     * The task handed to {@code handler} for this attempt of {@code claimed}.
     *
     * @throws PayloadUnreadableException when the stored payload does not read as the handler's type
     */
    <T> DurableTask<T> task(DurableTaskHandler<T> handler, ClaimedTask claimed, int attempt) {
        return new DurableTask<>(
                claimed.id(),
                claimed.handler(),
                claimed.key(),
                decode(claimed.payload(), handler.payloadType()),
                claimed.fireAt(),
                attempt,
                claimed.schedule() != null);
    }

    /** Calls the handler through the observer; a checked exception comes out wrapped, see {@link #cause}. */
    <T> void invoke(DurableTaskHandler<T> handler, DurableTask<T> task, @Nullable String traceParent) {
        try {
            observer.observe(task, traceParent, () -> handler.handle(task));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new HandlerFailure(e);
        }
    }

    /** What the handler threw, out of the wrapper {@link #invoke} put a checked exception in. */
    static Throwable cause(Throwable thrown) {
        return thrown instanceof HandlerFailure failure ? failure.getCause() : thrown;
    }

    /**
     * One line per attempt that will be retried; the stack trace once, when the task gives up (a
     * one-off task stays FAILED, a recurring one moves to its next fire).
     */
    void logFailure(ClaimedTask claimed, int attempt, Throwable cause) {
        String task = "Durable task " + claimed.handler() + "/" + claimed.key() + " failed (attempt " + attempt + " of "
                + settings.maxAttempts() + ")";
        if (attempt < settings.maxAttempts()) {
            logger.warn(task + ", retried in " + settings.backoff(attempt).toMillis() + " ms: " + cause);
        } else if (claimed.schedule() == null) {
            logger.error(task + "; it stays FAILED", cause);
        } else {
            logger.error(task + "; this fire is given up, the task moves on to its next fire", cause);
        }
    }

    private <T> @Nullable T decode(@Nullable String payload, Class<T> type) {
        if (payload == null) {
            return null;
        }
        if (type == String.class) {
            return type.cast(payload);
        }
        try {
            return codec.read(payload, type);
        } catch (IllegalArgumentException e) {
            // Not chained, and not the payload: the message goes to last_error and to the page.
            String prefix = "Cannot read a payload as " + type.getName() + ": ";
            String message = String.valueOf(e.getMessage());
            String reason = message.startsWith(prefix) ? message.substring(prefix.length()) : message;
            throw new PayloadUnreadableException("payload could not be read as " + type.getName() + ": " + reason);
        }
    }

    /** A stored payload that does not read as its handler's payload type. */
    static final class PayloadUnreadableException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        PayloadUnreadableException(String message) {
            super(message);
        }
    }

    /** Carries a handler's checked exception through the transaction callback. */
    private static final class HandlerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HandlerFailure(Exception cause) {
            super(cause);
        }
    }
}
