package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.timedjobs.scheduler.jdbc.durable.DurableExecutionObserver;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; called on the durable task workers. Wraps each durable execution in an Observation
 * named {@value #NAME}, with the handler name as a low-cardinality key and the task key and attempt
 * as high-cardinality ones, so that traces and timers see durable tasks as they see scheduled ones.
 *
 * <p>A task stored with the trace context of its scheduling call (see {@link ObservedDurableSchedule})
 * runs in a consumer Observation whose carrier gives that {@code traceparent} back: a tracer's
 * propagating handler makes the run's span a <b>child</b> of the scheduling span, in the same trace.
 * A child rather than a span link, because a durable task is the rest of the work the request began
 * (a sent e-mail, a settled payment), and the trace view should show it under that request, however
 * late it runs; each attempt is a sibling under the same parent. A recurring task continues the
 * trace only at its first fire (the column is cleared after it), so later fires start traces of
 * their own instead of growing one without end.
 *
 * <p>With no handler registered (no tracer, no metrics) the registry is a no-op and the execution
 * runs as it is.
 */
final class ObservedDurableExecution implements DurableExecutionObserver {

    /** Name of the observation, beside Spring's {@code tasks.scheduled.execution}. */
    static final String NAME = "tasks.durable.execution";

    /** The W3C propagation field stored with a task. */
    static final String TRACEPARENT = "traceparent";

    private final ObservationRegistry registry;

    ObservedDurableExecution(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void observe(DurableTask<?> task, Execution execution) throws Exception {
        observe(task, null, execution);
    }

    @Override
    public void observe(DurableTask<?> task, @Nullable String traceParent, Execution execution) throws Exception {
        if (registry.isNoop()) {
            execution.run();
            return;
        }
        Observation observation = traceParent == null
                ? Observation.createNotStarted(NAME, registry)
                : Observation.createNotStarted(NAME, () -> scheduledUnder(traceParent), registry);
        observation
                .contextualName("durable " + task.handler())
                .lowCardinalityKeyValue("handler", task.handler())
                .highCardinalityKeyValue("key", task.key())
                .highCardinalityKeyValue("attempt", Integer.toString(task.attempt()))
                .observeChecked(execution::run);
    }

    /** A consumer context whose carrier answers the propagator with the stored traceparent. */
    private static ReceiverContext<String> scheduledUnder(String traceParent) {
        ReceiverContext<String> context =
                new ReceiverContext<>((carrier, field) -> TRACEPARENT.equals(field) ? carrier : null, Kind.CONSUMER);
        context.setCarrier(traceParent);
        return context;
    }
}
