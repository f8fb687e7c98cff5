package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The fence of a durable task's start on a database that answers (slowly), and the claims of tasks
 * started on their lease while the database was away, at a stop.
 */
class DurableStartFenceTest {

    private static final Duration WAIT = TestDelays.LONG;

    /** Claimed at once (5 s lookahead), polled every 50 ms, a 10 s lease. */
    private static final DurableTaskSettings SETTINGS = new DurableTaskSettings(
            Duration.ofSeconds(5),
            Duration.ofMillis(50),
            Duration.ofSeconds(10),
            3,
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            200,
            4);

    private final List<DurableTaskEngine> engines = new ArrayList<>();
    private final List<HikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void close() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
        pools.forEach(HikariDataSource::close);
    }

    private DurableTaskEngine start(ClusterDatabase database, DurableTaskHandler<?> handler) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName("a")
                .handler("mail", handler)
                .settings(SETTINGS)
                .transactionManager(new DataSourceTransactionManager(database.dataSource()))
                .build();
        engines.add(engine);
        engine.start();
        return engine;
    }

    /**
     * A task the application cancels in a transaction that holds its row past the task's due time
     * does not run: its start waits for the database's answer, which refuses it, and no outage is seen.
     */
    @Test
    void shouldNotRunATaskCancelledWhileItsStartWaitsForItsRow() {
        HikariDataSource pool = DurableTestSupport.newPostgres(6);
        pools.add(pool);
        DurableTestSupport.database(pool);
        // a database timeout of 8 s: a start in flight makes the database suspect after 1 s only
        ClusterDatabase database = ClusterDatabase.of(pool, TableNames.defaults(), Duration.ofSeconds(8));
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = start(database, handler);
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        Instant due = Instant.now().plusSeconds(2);
        engine.tasks().schedule("mail", "k", due, null);
        await().atMost(WAIT).until(() -> engine.queuedCount() == 1);

        new TransactionTemplate(new DataSourceTransactionManager(pool)).executeWithoutResult(status -> {
            jdbc.queryForList("SELECT id FROM " + database.tables().tasks() + " WHERE task_key = 'k' FOR UPDATE");
            // the start waits for the row, well past its due time and the old 50 ms of grace
            await().atMost(WAIT)
                    .until(() -> startWaitsForALock(pool) && Instant.now().isAfter(due.plusMillis(300)));
            assertThat(engine.tasks().cancel("mail", "k")).isTrue();
        });

        await().atMost(WAIT).until(() -> engine.fencedCount() == 1);
        assertThat(handler.totalRuns()).as("runs of the cancelled task").isZero();
        assertThat(engine.outageCount()).as("outages seen").isZero();
    }

    private static boolean startWaitsForALock(HikariDataSource pool) {
        Integer waiting = new JdbcTemplate(pool)
                .queryForObject(
                        "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                                + " AND datname = current_database()",
                        Integer.class);
        return waiting != null && waiting > 0;
    }

    /**
     * A task started on its lease while the database was away (still CLAIMED in the table) is not
     * handed back by a stop while it runs, so that no other instance runs it again; its outcome is
     * written once it ends.
     */
    @Test
    void shouldKeepATaskStartedWithoutItsStatementAtAStop() throws Exception {
        SwitchableDataSource switchable = new SwitchableDataSource(TestDatabases.newH2());
        ClusterDatabase database = DurableTestSupport.database(switchable);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        DurableTaskEngine engine = start(database, new DurableTaskHandler<String>() {
            @Override
            public Class<String> payloadType() {
                return String.class;
            }

            @Override
            public void handle(DurableTask<String> task) throws Exception {
                ran.add(task.key());
                running.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
        });
        engine.tasks().schedule("mail", "k", Instant.now().plusMillis(1500), null);
        await().atMost(WAIT).until(() -> engine.queuedCount() == 1);

        switchable.down();
        await().atMost(WAIT).until(() -> engine.outageCount() == 1);
        assertThat(running.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        switchable.up();

        Thread stop = new Thread(() -> engine.stop(Duration.ofSeconds(30)), "test-stop");
        stop.start();
        try {
            // past the hand-back, the stop waits for the running task
            await().atMost(WAIT)
                    .until(() -> Arrays.stream(stop.getStackTrace())
                            .anyMatch(frame -> frame.getClassName().equals(DurableTaskEngine.class.getName())
                                    && frame.getMethodName().equals("shutDown")));
            DurableTaskInfo row = engine.tasks().find("mail", "k").orElseThrow();
            assertThat(row.state()).as("state of the running task").isEqualTo(DurableTaskState.CLAIMED);
            assertThat(row.claimedBy()).isEqualTo("a");
        } finally {
            release.countDown();
            stop.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(engine.tasks().find("mail", "k")).as("the task, completed").isEmpty();
        assertThat(ran).containsExactly("k");
        assertThat(engine.fencedCount()).isZero();
    }
}
