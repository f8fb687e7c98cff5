package io.timedjobs.scheduler;

/**
 * A fixed-rate or fixed-delay task. It goes back into the queue after each execution, so runs of
 * one task never overlap.
 */
final class PeriodicTask extends RepeatingTask {

    /**
     * Positive: fixed rate, the next time is the previous time plus the period. Negative: fixed
     * delay, the next time is completion plus the delay.
     */
    private final long period;

    PeriodicTask(Owner pool, Runnable work, long time, long period) {
        super(pool, work, time);
        this.period = period;
    }

    @Override
    boolean scheduleNext() {
        time = nextTime(pool.ticker.read());
        pool.requeue(this);
        return true;
    }

    private long nextTime(long now) {
        if (period < 0) {
            return triggerTime(now, -period);
        }
        // Ahead of now by this much; time is at most now here, so the sum cannot overflow.
        long ahead = (time - now) + period;
        if (ahead < 0 && pool.misfirePolicy == MisfirePolicy.SKIP) {
            long behind = -ahead;
            long missed = behind / period + (behind % period == 0 ? 0 : 1);
            ahead += missed * period;
        }
        return ahead > MAX_DELAY ? now + MAX_DELAY : now + ahead;
    }
}
