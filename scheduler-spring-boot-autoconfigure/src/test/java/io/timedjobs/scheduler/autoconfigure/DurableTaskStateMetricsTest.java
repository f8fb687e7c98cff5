package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.timedjobs.scheduler.dashboard.ActionResult;
import io.timedjobs.scheduler.dashboard.ClusterReport;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterView;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The durable-tasks-by-state gauge: one query serves every state for a second, and a failed query reads NaN. */
class DurableTaskStateMetricsTest {

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicInteger queries = new AtomicInteger();
    private volatile boolean databaseDown;

    private final ClusterReport report = new ClusterReport() {
        @Override
        public ClusterView view() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<String, Long> countsByState() {
            queries.incrementAndGet();
            if (databaseDown) {
                throw new IllegalStateException("database down");
            }
            return Map.of("PENDING", 3L, "CLAIMED", 0L, "RUNNING", 1L, "FAILED", 2L);
        }

        @Override
        public boolean setJobPaused(String job, boolean paused) {
            throw new UnsupportedOperationException();
        }

        @Override
        public java.util.Set<String> pausedJobs() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ActionResult retry(String handler, String key) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ActionResult cancel(String handler, String key) {
            throw new UnsupportedOperationException();
        }
    };

    /** Every state has a gauge; reading them all within a second costs one query. */
    @Test
    void shouldReadEveryStateFromOneQueryPerSecond() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new DurableTaskStateMetrics(report, nanos::get).bindTo(registry);

        assertThat(gauge(registry, "PENDING")).isEqualTo(3.0);
        assertThat(gauge(registry, "RUNNING")).isEqualTo(1.0);
        assertThat(gauge(registry, "FAILED")).isEqualTo(2.0);
        assertThat(gauge(registry, "CLAIMED")).isZero();
        assertThat(queries).hasValue(1);

        nanos.addAndGet(1_000_000_001L);
        gauge(registry, "PENDING");
        assertThat(queries).hasValue(2);
    }

    /** A query that fails reads as NaN, not as zero tasks. */
    @Test
    void shouldReadNaNWhenTheDatabaseFails() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new DurableTaskStateMetrics(report, nanos::get).bindTo(registry);
        databaseDown = true;
        assertThat(gauge(registry, "PENDING")).isNaN();
    }

    private static double gauge(SimpleMeterRegistry registry, String state) {
        return registry.get(DurableTaskStateMetrics.NAME)
                .tag("state", state)
                .gauge()
                .value();
    }
}
