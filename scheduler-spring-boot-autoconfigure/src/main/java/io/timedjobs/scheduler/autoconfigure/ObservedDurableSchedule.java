package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.SenderContext;
import io.timedjobs.scheduler.jdbc.durable.DurableScheduleObserver;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; called on the thread that schedules a durable task. Wraps each scheduling call in a
 * producer Observation named {@value #NAME}; a tracer's propagating handler writes the new span's
 * context into the carrier, and its {@code traceparent} is stored with the task so that the run
 * continues the trace (see {@link ObservedDurableExecution}).
 *
 * <p>With no handler registered (no tracer, no metrics) the registry is a no-op and the write runs
 * as it is: nothing allocated, no column written.
 */
final class ObservedDurableSchedule implements DurableScheduleObserver {

    /** Name of the observation, beside {@value ObservedDurableExecution#NAME}. */
    static final String NAME = "tasks.durable.schedule";

    private final ObservationRegistry registry;

    ObservedDurableSchedule(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public long observe(String handler, String key, Write write) {
        if (registry.isNoop()) {
            return write.run(null);
        }
        Carrier carrier = new Carrier();
        SenderContext<Carrier> context = new SenderContext<>(Carrier::set, Kind.PRODUCER);
        context.setCarrier(carrier);
        return Observation.createNotStarted(NAME, () -> context, registry)
                .contextualName("durable schedule " + handler)
                .lowCardinalityKeyValue("handler", handler)
                .highCardinalityKeyValue("key", key)
                .observe(() -> write.run(carrier.traceParent));
    }

    /** What a propagator writes while the scheduling span starts: only the W3C field is kept. */
    static final class Carrier {

        private @Nullable String traceParent;

        void set(String field, String value) {
            if (ObservedDurableExecution.TRACEPARENT.equals(field)) {
                traceParent = value;
            }
        }
    }
}
