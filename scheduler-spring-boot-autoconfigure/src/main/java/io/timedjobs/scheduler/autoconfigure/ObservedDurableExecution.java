package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.timedjobs.scheduler.jdbc.durable.DurableExecutionObserver;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;

/**
 * Thread-safe; called on the durable task workers. Wraps each durable execution in an Observation
 * named {@value #NAME}, with the handler name as a low-cardinality key and the task key and attempt
 * as high-cardinality ones, so that traces and timers see durable tasks as they see scheduled ones.
 */
final class ObservedDurableExecution implements DurableExecutionObserver {

    /** Name of the observation, beside Spring's {@code tasks.scheduled.execution}. */
    static final String NAME = "tasks.durable.execution";

    private final ObservationRegistry registry;

    ObservedDurableExecution(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void observe(DurableTask<?> task, Execution execution) throws Exception {
        Observation.createNotStarted(NAME, registry)
                .contextualName("durable " + task.handler())
                .lowCardinalityKeyValue("handler", task.handler())
                .highCardinalityKeyValue("key", task.key())
                .highCardinalityKeyValue("attempt", Integer.toString(task.attempt()))
                .observeChecked(execution::run);
    }
}
