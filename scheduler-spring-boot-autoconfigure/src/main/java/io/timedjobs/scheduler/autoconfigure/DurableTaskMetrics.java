package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskStore;
import java.util.function.ToDoubleFunction;

/**
 * Bound once per registry by Spring Boot; the meters read the engine's figures when scraped. The
 * durable task meters of one instance, tagged {@code scheduler} with the engine's bean name:
 *
 * <ul>
 *   <li>{@code scheduler.cluster.durable.claimed}: tasks this instance claimed;
 *   <li>{@code scheduler.cluster.durable.rescued}: expired claims of other instances it took over;
 *   <li>{@code scheduler.cluster.durable.completed} and {@code .failed}: executions by outcome;
 *   <li>{@code scheduler.cluster.durable.fenced}: starts and outcomes refused by their fence;
 *   <li>{@code scheduler.cluster.durable.pending}: tasks not done yet in the whole table, as of the
 *       last count (every 10 s), counted up to {@link DurableTaskStore#COUNT_LIMIT}.
 * </ul>
 */
final class DurableTaskMetrics implements MeterBinder {

    static final String PREFIX = "scheduler.cluster.durable.";

    private final DurableTaskEngine engine;
    private final String name;

    DurableTaskMetrics(DurableTaskEngine engine, String name) {
        this.engine = engine;
        this.name = name;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "claimed", "Durable tasks this instance claimed", DurableTaskEngine::claimedCount);
        counter(registry, "rescued", "Expired claims of other instances taken over", DurableTaskEngine::rescuedCount);
        counter(registry, "completed", "Durable task executions that returned", DurableTaskEngine::completedCount);
        counter(registry, "failed", "Durable task executions that threw", DurableTaskEngine::failedCount);
        counter(
                registry,
                "fenced",
                "Durable task starts and outcomes refused by their fence",
                DurableTaskEngine::fencedCount);
        Gauge.builder(PREFIX + "pending", engine, DurableTaskEngine::pendingCount)
                .description(
                        "Durable tasks not done yet in the database, counted up to " + DurableTaskStore.COUNT_LIMIT)
                .tag("scheduler", name)
                .register(registry);
    }

    private void counter(
            MeterRegistry registry, String suffix, String description, ToDoubleFunction<DurableTaskEngine> count) {
        FunctionCounter.builder(PREFIX + suffix, engine, count)
                .description(description)
                .tag("scheduler", name)
                .register(registry);
    }
}
