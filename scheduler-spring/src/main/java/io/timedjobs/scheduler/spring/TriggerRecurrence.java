package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.Recurrence;
import java.time.Clock;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;

/** Lets a Spring {@link Trigger} drive the engine's rule-driven schedule. */
final class TriggerRecurrence implements Recurrence {

    private final Trigger trigger;

    TriggerRecurrence(Trigger trigger) {
        this.trigger = trigger;
    }

    @Override
    public @Nullable Instant nextExecution(Context context) {
        return trigger.nextExecution(new EngineTriggerContext(context));
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
}
