package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.MisfirePolicy;
import org.jspecify.annotations.Nullable;

/**
 * A fixed-rate or fixed-delay task. It goes back into the queue after each execution, so runs of
 * one task never overlap.
 */
final class PeriodicTask extends ScheduledTask<Void> {

    /** Positive: fixed rate, the next time is the previous time plus the period. Negative: fixed delay, the next time is completion plus the delay. */
    private final long period;

    PeriodicTask(WorkerPool pool, Runnable work, long time, long period) {
        super(pool, work, time);
        this.period = period;
    }

    @Override
    public boolean isPeriodic() {
        return true;
    }

    @Override
    boolean isRepeating() {
        return true;
    }

    @Override
    @Nullable
    Outcome execute() {
        if (!claimRunner()) {
            return null;
        }
        Throwable failure = null;
        try {
            Object w = payload;
            if (w == null || !isNew()) {
                return null;
            }
            try {
                ((Runnable) w).run();
            } catch (Throwable t) {
                failure = t;
            }
        } finally {
            releaseRunner();
        }
        if (failure != null) {
            Throwable fatal = pool.handleRepeatingFailure(failure);
            if (fatal != null) {
                complete(EXCEPTIONAL, fatal);
                return Outcome.FAILED;
            }
        }
        if (isNew()) {
            time = nextTime(pool.ticker.read());
            pool.requeue(this);
        }
        return failure == null ? Outcome.SUCCEEDED : Outcome.FAILED;
    }

    private long nextTime(long now) {
        if (period < 0) {
            return WorkerPool.triggerTime(now, -period);
        }
        // Ahead of now by this much; time is at most now here, so the sum cannot overflow.
        long ahead = (time - now) + period;
        if (ahead < 0 && pool.misfirePolicy == MisfirePolicy.SKIP) {
            long behind = -ahead;
            long missed = behind / period + (behind % period == 0 ? 0 : 1);
            ahead += missed * period;
        }
        return ahead > WorkerPool.MAX_DELAY ? now + WorkerPool.MAX_DELAY : now + ahead;
    }
}
