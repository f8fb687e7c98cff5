package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.Recurrence;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.support.CronTrigger;

/**
 * Lets a Spring {@link Trigger} drive the engine's rule-driven schedule; called by the worker that
 * ran the job, one execution at a time.
 *
 * <p>A cron trigger's next fire is the first after the run ended, so the fires that came due while
 * a run went on get no run: they are reported to the job as passed over ({@link
 * TrackedJob#passedOver}), at their nominal instants. This costs nothing for a run shorter than a
 * second (cron fires are whole seconds apart), and one evaluation of the expression per fire passed
 * over otherwise. Other triggers define no fire apart from their runs, and report none.
 */
final class TriggerRecurrence implements Recurrence {

    /** Cron fires are at least this far apart: a shorter run passes none over. */
    private static final Duration CRON_RESOLUTION = Duration.ofSeconds(1);

    private final Trigger trigger;

    /** The job whose passed-over fires are reported; null when no fire is (not a local cron job). */
    private final @Nullable TrackedJob job;

    TriggerRecurrence(Trigger trigger, TrackedJob job) {
        this.trigger = trigger;
        this.job = trigger instanceof CronTrigger && !job.isSharedByInstances() ? job : null;
    }

    @Override
    public @Nullable Instant nextExecution(Context context) {
        Instant next = trigger.nextExecution(new EngineTriggerContext(context));
        TrackedJob passing = job;
        Instant scheduled = context.lastScheduled();
        Instant completed = context.lastCompleted();
        if (passing != null
                && next != null
                && scheduled != null
                && completed != null
                && !completed.isBefore(scheduled.plus(CRON_RESOLUTION))) {
            reportPassedOver(passing, scheduled, next, context.clock());
        }
        return next;
    }

    /** Reports the trigger's fires strictly between the last scheduled one and the next. */
    private void reportPassedOver(TrackedJob passing, Instant scheduled, Instant next, Clock clock) {
        Instant first = null;
        Instant last = null;
        long fires = 0;
        Instant fire = trigger.nextExecution(new AfterFire(scheduled, clock));
        while (fire != null && fire.isBefore(next)) {
            if (first == null) {
                first = fire;
            }
            last = fire;
            fires++;
            fire = trigger.nextExecution(new AfterFire(fire, clock));
        }
        if (first != null) {
            passing.passedOver(first, last, fires);
        }
    }

    @Override
    public String toString() {
        return trigger.toString();
    }

    /**
     * Spring's view of the engine's context. A view, not a copy: the engine fills in the times,
     * and its clock is the scheduler's clock.
     */
    private record EngineTriggerContext(Context context) implements TriggerContext {

        @Override
        public Clock getClock() {
            return context.clock();
        }

        @Override
        public @Nullable Instant lastScheduledExecution() {
            return context.lastScheduled();
        }

        @Override
        public @Nullable Instant lastActualExecution() {
            return context.lastStarted();
        }

        @Override
        public @Nullable Instant lastCompletion() {
            return context.lastCompleted();
        }
    }

    /** A fire that ran and ended at its nominal instant: the trigger then gives the fire after it. */
    private record AfterFire(Instant fire, Clock clock) implements TriggerContext {

        @Override
        public Clock getClock() {
            return clock;
        }

        @Override
        public Instant lastScheduledExecution() {
            return fire;
        }

        @Override
        public Instant lastActualExecution() {
            return fire;
        }

        @Override
        public Instant lastCompletion() {
            return fire;
        }
    }
}
