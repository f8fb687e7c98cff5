package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.timedjobs.scheduler.dashboard.ClusterReport;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskStore;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the gauge {@code scheduler.cluster.durable.tasks}, durable tasks in the database by
 * {@code state}. Every instance reads the same table, so dashboards take the maximum over
 * instances. One query serves all states, and its answer is reused for a second, so one scrape
 * costs one query.
 */
final class DurableTaskStateMetrics implements MeterBinder {

    static final String NAME = "scheduler.cluster.durable.tasks";

    private static final long REUSE_NANOS = 1_000_000_000L;

    private final ClusterReport report;
    private final LongSupplier nanoTime;

    private record Reading(long atNanos, Map<String, Long> counts) {}

    private volatile @Nullable Reading last;

    DurableTaskStateMetrics(ClusterReport report, LongSupplier nanoTime) {
        this.report = report;
        this.nanoTime = nanoTime;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (DurableTaskState state : DurableTaskState.values()) {
            Gauge.builder(NAME, this, metrics -> metrics.count(state.name()))
                    .description("Durable tasks in the database by state, each counted up to "
                            + DurableTaskStore.COUNT_LIMIT + ", as of the last second")
                    .baseUnit("tasks")
                    .tag("state", state.name())
                    // the registry keeps the binder alive: nothing else may hold it
                    .strongReference(true)
                    .register(registry);
        }
    }

    /** Returns the count of a state, querying at most once a second; NaN when the database fails. */
    double count(String state) {
        long now = nanoTime.getAsLong();
        Reading reading = last;
        if (reading == null || now - reading.atNanos() > REUSE_NANOS) {
            try {
                reading = new Reading(now, report.countsByState());
            } catch (RuntimeException databaseDown) {
                return Double.NaN;
            }
            last = reading;
        }
        return reading.counts().getOrDefault(state, 0L);
    }
}
