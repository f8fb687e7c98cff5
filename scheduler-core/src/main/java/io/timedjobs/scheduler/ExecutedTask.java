package io.timedjobs.scheduler;

/**
 * A task handed to {@code execute(Runnable)}: nobody holds its future, so its failure goes to the
 * error handler instead of staying unseen in the future.
 */
final class ExecutedTask extends ScheduledTask<Void> {

    ExecutedTask(Owner pool, Runnable work, long time) {
        super(pool, work, time);
    }

    /** The future holds the failure as usual; the error handler sees it, and may throw. */
    @Override
    void failed(Throwable failure) {
        complete(EXCEPTIONAL, failure);
        pool().errorHandler.handleError(failure);
    }
}
