package io.timedjobs.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A task whose executions a {@link Recurrence} computes, one at a time, as wall-clock instants.
 *
 * <p>The queue orders it by ticker time, converted from the wall-clock instant when it is queued.
 * Because the two clocks can drift apart, the worker checks the wall clock again before running it
 * and, if the instant has not come yet, puts the task back for the remaining difference: a cron job
 * never fires early.
 */
final class RecurringTask extends RepeatingTask implements Recurrence.Context {

    private final Recurrence recurrence;

    /** The wall-clock instant of the pending execution. Only the worker running the task writes it. */
    private Instant scheduled;

    /** When the previous execution started and completed; written and read by the worker running it. */
    private @Nullable Instant lastStarted;

    private @Nullable Instant lastCompleted;

    RecurringTask(Owner pool, Runnable work, Recurrence recurrence, Instant first) {
        super(pool, work, 0L);
        this.recurrence = recurrence;
        this.scheduled = first;
        this.time = ticksUntil(first);
    }

    /** Returns the first execution a rule gives, asked with no execution behind it; or null. */
    static @Nullable Instant firstExecution(Recurrence recurrence, Clock clock) {
        return recurrence.nextExecution(new FirstExecution(clock));
    }

    /** What a rule sees before the first execution: no instant yet, only the clock. */
    private record FirstExecution(Clock clock) implements Recurrence.Context {
        @Override
        public @Nullable Instant lastScheduled() {
            return null;
        }

        @Override
        public @Nullable Instant lastStarted() {
            return null;
        }

        @Override
        public @Nullable Instant lastCompleted() {
            return null;
        }
    }

    /** Puts the task back for the rest of the wait when the wall clock says it is early. */
    @Override
    boolean mayStart() {
        Instant now = pool.clock.instant();
        if (now.isBefore(scheduled)) {
            if (isNew()) {
                time = ticksUntil(scheduled);
                pool.requeue(this);
            }
            return false;
        }
        return true;
    }

    @Override
    void started() {
        lastStarted = pool.clock.instant();
    }

    @Override
    void finished() {
        lastCompleted = pool.clock.instant();
    }

    @Override
    boolean scheduleNext() {
        Instant next;
        try {
            next = recurrence.nextExecution(this);
        } catch (Throwable ruleFailure) {
            complete(EXCEPTIONAL, ruleFailure);
            return false;
        }
        if (next == null) {
            complete(NORMAL, null);
        } else {
            scheduled = next;
            time = ticksUntil(next);
            pool.requeue(this);
        }
        return true;
    }

    private long ticksUntil(Instant instant) {
        long now = pool.ticker.read();
        Duration until = Duration.between(pool.clock.instant(), instant);
        if (until.isNegative()) {
            return now;
        }
        long nanos;
        try {
            nanos = until.toNanos();
        } catch (ArithmeticException tooFar) {
            nanos = Long.MAX_VALUE;
        }
        return triggerTime(now, nanos);
    }

    @Override
    public @Nullable Instant lastScheduled() {
        return lastStarted == null ? null : scheduled;
    }

    @Override
    public @Nullable Instant lastStarted() {
        return lastStarted;
    }

    @Override
    public @Nullable Instant lastCompleted() {
        return lastCompleted;
    }

    @Override
    public Clock clock() {
        return pool.clock;
    }
}
