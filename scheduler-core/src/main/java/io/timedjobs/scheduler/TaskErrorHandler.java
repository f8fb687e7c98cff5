package io.timedjobs.scheduler;

import java.lang.System.Logger.Level;

/**
 * Receives the failures that no {@link java.util.concurrent.Future} reports: those of repeating
 * tasks and of tasks handed to {@link java.util.concurrent.Executor#execute(Runnable)}; or, set as
 * the {@linkplain LeaderFollowerScheduler.Builder#oneShotErrorHandler one-shot error handler}, the
 * failures of one-shot tasks before their futures see them.
 *
 * <p>A handler that throws ends the repeating task that failed (its future then completes with the
 * handler's exception); for a task given to {@code execute}, the exception ends the worker thread,
 * which the pool replaces, and reaches the thread's uncaught-exception handler.
 */
@FunctionalInterface
public interface TaskErrorHandler {

    /**
     * Handles the failure of a task.
     *
     * @param failure what the task threw
     */
    void handleError(Throwable failure);

    /** Returns the default handler, which logs each failure at {@code WARNING} level. */
    static TaskErrorHandler logging() {
        return LoggingErrorHandler.INSTANCE;
    }
}

enum LoggingErrorHandler implements TaskErrorHandler {
    INSTANCE;

    private static final System.Logger LOGGER = System.getLogger(LeaderFollowerScheduler.class.getName());

    @Override
    public void handleError(Throwable failure) {
        LOGGER.log(Level.WARNING, "Scheduled task failed", failure);
    }
}
