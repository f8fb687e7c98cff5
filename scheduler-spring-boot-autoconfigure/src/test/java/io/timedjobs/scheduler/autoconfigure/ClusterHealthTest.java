package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The cluster's part of the health component alone, on a manual clock: status, details and what it costs. */
class ClusterHealthTest {

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicInteger countQueries = new AtomicInteger();
    private final Map<String, String> refused = new LinkedHashMap<>();
    private final OutageLog database = new OutageLog(ClusterHealthTest.class, "the test's database");
    private final ClusterHealth health = new ClusterHealth(
            () -> Map.copyOf(refused),
            database,
            () -> {
                countQueries.incrementAndGet();
                return Map.of("PENDING", 3L, "FAILED", 2L);
            },
            nanos::get);

    private Map<String, Object> details;

    private String read() {
        details = new LinkedHashMap<>();
        return health.read(details);
    }

    /** Health endpoints are polled: the failed-task count costs one statement per period, however many reads. */
    @Test
    void shouldCountFailedTasksAtMostOncePerPeriod() {
        for (int i = 0; i < 10; i++) {
            assertThat(read()).isEqualTo("UP");
        }
        assertThat(details).containsEntry("failedDurableTasks", 2L);
        assertThat(countQueries).hasValue(1);

        nanos.addAndGet(ClusterHealth.REUSE.toNanos());
        read();
        read();
        assertThat(countQueries).hasValue(2);
    }

    /** While the database is unreachable: DOWN, and no statement at all; the last count stays shown. */
    @Test
    void shouldReportDownWithoutQueryingWhileTheDatabaseIsUnreachable() {
        read();
        database.failed("heartbeat", new IllegalStateException("connection refused"));
        nanos.addAndGet(ClusterHealth.REUSE.toNanos() * 3);

        assertThat(read()).isEqualTo("DOWN");
        assertThat(details)
                .containsEntry("database", "UNREACHABLE")
                .containsKey("databaseOutage")
                .containsEntry("failedDurableTasks", 2L);
        assertThat(countQueries).hasValue(1);
    }

    /** A refused job: REFUSED_JOBS with the job and its reason; a database outage outranks it. */
    @Test
    void shouldReportRefusedJobsUnlessTheDatabaseIsDown() {
        refused.put("report.send", "its cron zone here is Asia/Tokyo but the job is recorded with UTC");

        assertThat(read()).isEqualTo(SchedulerHealth.REFUSED_JOBS);
        assertThat(details).containsEntry("refusedJobs", Map.copyOf(refused));

        database.failed("heartbeat", new IllegalStateException("connection refused"));
        assertThat(read()).isEqualTo("DOWN");
    }

    /** Without durable tasks there is no count, and no statement. */
    @Test
    void shouldLeaveTheCountOutWithoutDurableTasks() {
        ClusterHealth withoutTasks = new ClusterHealth(Map::of, database, () -> null, nanos::get);
        Map<String, Object> read = new LinkedHashMap<>();
        assertThat(withoutTasks.read(read)).isEqualTo("UP");
        assertThat(read).doesNotContainKey("failedDurableTasks").containsEntry("database", "UP");
    }
}
