package io.timedjobs.scheduler;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * A task that runs more than once. Each execution runs the work without completing the future,
 * reports a failure to the error handler, and then lets the subclass decide when the next one is
 * due, going back into the queue; so executions of one task never overlap.
 */
abstract class RepeatingTask extends ScheduledTask<Void> {

    /** The pool, kept here too: repeating tasks use it on every run, and they are few. */
    final Owner pool;

    RepeatingTask(Owner pool, Runnable work, long time) {
        super(pool, work, time);
        this.pool = pool;
    }

    @Override
    public final boolean isPeriodic() {
        return true;
    }

    /**
     * Runs the work once, through the gate if there is one. A skipped execution calls {@link
     * #started} and {@link #finished} as a run would, so the next one is computed as if it ran,
     * and reports no outcome.
     */
    @Override
    final @Nullable Outcome execute(@Nullable RunGate gate) {
        if (!mayStart() || !claim()) {
            return null;
        }
        Throwable failure = null;
        boolean ran = true;
        try {
            Object w = payload;
            if (w == null) {
                return null;
            }
            started();
            try {
                if (gate == null) {
                    ((Runnable) w).run();
                } else {
                    ran = runGated(gate, (Runnable) w);
                }
            } catch (Throwable t) {
                failure = t;
            }
            finished();
        } finally {
            release();
        }
        if (failure != null) {
            Throwable fatal = pool.handleRepeatingFailure(failure);
            if (fatal != null) {
                complete(EXCEPTIONAL, fatal);
                return Outcome.FAILED;
            }
        }
        if (isNew() && !scheduleNext()) {
            return Outcome.FAILED;
        }
        if (!ran) {
            return null;
        }
        return failure == null ? Outcome.SUCCEEDED : Outcome.FAILED;
    }

    /**
     * Runs the work if the gate lets it, then leaves the gate; a failure of the gate joins the
     * work's own.
     *
     * @return whether the work ran
     */
    private static boolean runGated(RunGate gate, Runnable w) {
        if (!gate.enter(w)) {
            return false;
        }
        try {
            w.run();
        } catch (Throwable failure) {
            exitAfterFailure(gate, w, failure);
            throw failure;
        }
        gate.exit(w);
        return true;
    }

    /**
     * Whether the execution may start now; a task that may not puts itself back in the queue. The
     * default: always.
     */
    boolean mayStart() {
        return true;
    }

    /** Called on the worker right before the work runs. */
    void started() {}

    /** Called on the worker right after the work ran, whether it threw or not. */
    void finished() {}

    /**
     * Computes the next due time and re-queues the task, or completes it when there is no next
     * execution.
     *
     * @return false if computing the next execution failed (the task then completed with that
     *     failure)
     */
    abstract boolean scheduleNext();
}
