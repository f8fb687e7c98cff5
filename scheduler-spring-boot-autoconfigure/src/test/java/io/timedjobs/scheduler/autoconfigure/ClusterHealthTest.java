package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.database.DatabaseReach;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cluster's part of the health component alone, on a manual clock: status, details and what it costs. */
class ClusterHealthTest {

    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final ManualTicker ticker = new ManualTicker();
    private final AtomicInteger countQueries = new AtomicInteger();
    private final Map<String, String> refused = new LinkedHashMap<>();
    private final OutageLog database = new OutageLog(ClusterHealthTest.class, "the test's database");
    private final DatabaseReach reach = new DatabaseReach(ticker);
    private final ClusterHealth health = new ClusterHealth(
            () -> Map.copyOf(refused),
            database,
            reach,
            POLL,
            TIMEOUT,
            () -> {
                countQueries.incrementAndGet();
                return Map.of("PENDING", 3L, "FAILED", 2L);
            },
            ticker::read);

    private Map<String, Object> details;

    @BeforeEach
    void answered() {
        reach.calling();
        reach.answered();
    }

    private String read() {
        details = new LinkedHashMap<>();
        return health.read(details);
    }

    /** A read runs no statement: the failed-task count is taken by the heartbeat's poll, once per period. */
    @Test
    void shouldCountFailedTasksOnlyInThePollAtMostOncePerPeriod() {
        assertThat(read()).isEqualTo("UP");
        assertThat(countQueries).hasValue(0);
        assertThat(details).doesNotContainKey("failedDurableTasks");

        for (int i = 0; i < 10; i++) {
            health.refreshFailedTasks();
            assertThat(read()).isEqualTo("UP");
        }
        assertThat(details).containsEntry("failedDurableTasks", 2L);
        assertThat(countQueries).hasValue(1);

        ticker.advance(ClusterHealth.REUSE);
        health.refreshFailedTasks();
        health.refreshFailedTasks();
        assertThat(countQueries).hasValue(2);
    }

    /** Nobody reads health: after the first count (at start-up), the heartbeat's poll takes none. */
    @Test
    void shouldNotCountWhileHealthIsNotRead() {
        health.refreshFailedTasks();
        assertThat(countQueries).hasValue(1);

        ticker.advance(ClusterHealth.REUSE);
        health.refreshFailedTasks();
        assertThat(countQueries).hasValue(1);

        read();
        ticker.advance(DatabaseReach.WATCHED_FOR);
        health.refreshFailedTasks();
        assertThat(countQueries).hasValue(1);
    }

    /** The heartbeat's last call failed: DOWN, with the outage's length; the last count stays shown. */
    @Test
    void shouldReportDownWhenTheLastCallFailed() {
        read();
        health.refreshFailedTasks();
        reach.calling();
        reach.failed();
        database.failed("heartbeat", new IllegalStateException("connection refused"));

        assertThat(read()).isEqualTo("DOWN");
        assertThat(details)
                .containsEntry("database", "UNREACHABLE")
                .containsKey("databaseOutage")
                .containsEntry("failedDurableTasks", 2L);
    }

    /** A call that hangs: UP while within the database timeout, DOWN with its age once longer. */
    @Test
    void shouldReportDownOnceACallHangsLongerThanTheDatabaseTimeout() {
        reach.calling();
        ticker.advance(TIMEOUT);
        assertThat(read()).isEqualTo("UP");

        ticker.advance(Duration.ofMillis(1));
        assertThat(read()).isEqualTo("DOWN");
        assertThat(details).containsEntry("database", "UNREACHABLE").containsEntry("databaseCallInFlight", "PT2.001S");
    }

    /** No call at all (the heartbeat's thread is stuck elsewhere): never UP on an answer older than poll + timeout + margin. */
    @Test
    void shouldReportDownOnAnAnswerOlderThanAPollIntervalPlusTheTimeout() {
        Duration limit = POLL.plus(TIMEOUT).plus(ClusterHealth.MARGIN);
        read(); // watched from here: the heartbeat checks at every poll
        ticker.advance(limit);
        assertThat(read()).isEqualTo("UP");

        ticker.advance(Duration.ofMillis(1));
        assertThat(read()).isEqualTo("DOWN");
        assertThat(details)
                .containsEntry("databaseLastAnswer", limit.plusMillis(1).toString());

        reach.calling();
        reach.answered();
        assertThat(read()).isEqualTo("UP");
    }

    /**
     * Unread, the heartbeat beats only at its own pace (every half lease): the first read after
     * that idle spell is UP on the last known answer, and the reads after it are held to the poll
     * bound again, counted from that first read.
     */
    @Test
    void shouldReportUpOnTheFirstReadAfterAnIdleSpell() {
        Duration limit = POLL.plus(TIMEOUT).plus(ClusterHealth.MARGIN);
        ticker.advance(DatabaseReach.WATCHED_FOR.plus(Duration.ofSeconds(15)));
        assertThat(read()).isEqualTo("UP");

        ticker.advance(limit);
        assertThat(read()).isEqualTo("UP");
        ticker.advance(Duration.ofMillis(1));
        assertThat(read()).isEqualTo("DOWN");
        assertThat(details)
                .containsEntry("databaseLastAnswer", limit.plusMillis(1).toString());
    }

    /** Before any answer the state is unknown, which is not UP. */
    @Test
    void shouldNotReportUpBeforeAnyAnswer() {
        ClusterHealth fresh = new ClusterHealth(
                Map::of, database, new DatabaseReach(ticker), POLL, TIMEOUT, () -> null, ticker::read);
        assertThat(fresh.read(new LinkedHashMap<>())).isEqualTo("DOWN");
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

    /** Without durable tasks there is no count. */
    @Test
    void shouldLeaveTheCountOutWithoutDurableTasks() {
        ClusterHealth withoutTasks =
                new ClusterHealth(Map::of, database, reach, POLL, TIMEOUT, () -> null, ticker::read);
        Map<String, Object> read = new LinkedHashMap<>();
        withoutTasks.read(read);
        withoutTasks.refreshFailedTasks();
        assertThat(withoutTasks.read(read)).isEqualTo("UP");
        assertThat(read).doesNotContainKey("failedDurableTasks").containsEntry("database", "UP");
    }
}
