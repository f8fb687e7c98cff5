package io.timedjobs.scheduler.jdbc.cluster;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskSettings;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * For tests: an instance run as a separate JVM by {@link FrozenInstanceTest}, to be frozen with
 * SIGSTOP. Arguments: JDBC URL, instance name, and "schedule" for the instance that schedules the
 * durable task "slowTask/k1" during its first run of the fixed-delay job. Runs go to the table
 * {@code test_runs}; logs to standard output.
 */
public final class FrozenInstanceMain {

    /** The durable tasks of this process, once its engine is built; the job schedules through it. */
    static final AtomicReference<@Nullable DurableTasks> TASKS = new AtomicReference<>();

    static final AtomicBoolean SCHEDULES = new AtomicBoolean();

    private FrozenInstanceMain() {}

    public static void main(String[] args) throws InterruptedException {
        String url = args[0];
        String name = args[1];
        SCHEDULES.set(args.length > 2 && args[2].equals("schedule"));
        HikariDataSource dataSource = TestDatabases.pooled(url, 10_000);
        ConfigurableApplicationContext context = TestInstance.start(
                dataSource, name, Duration.ZERO, TestInstance.Settings.shrunk(), new RunLog(), FrozenJobs.class);
        DurableTaskSettings settings = new DurableTaskSettings(
                Duration.ofSeconds(5),
                Duration.ofMillis(200),
                TestInstance.Settings.shrunk().lease(),
                3,
                Duration.ofMillis(100),
                Duration.ofSeconds(1),
                50,
                2);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        DurableTaskEngine engine = DurableTaskEngine.builder(context.getBean(ClusterDatabase.class))
                .handler("slowTask", new SlowHandler(jdbc, name))
                .settings(settings)
                .heartbeat(context.getBean(ClusterHeartbeat.class), context.getBean(DatabaseClock.class))
                .build();
        engine.start();
        TASKS.set(engine.tasks());
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            engine.stop(Duration.ZERO);
            context.close();
            dataSource.close();
            closed.countDown();
        }));
        closed.await();
    }

    static long started(JdbcTemplate jdbc, String job, @Nullable Object fire, String instance) {
        Long id = jdbc.queryForObject(
                "INSERT INTO test_runs (job, fire_at, instance_name, started_at) VALUES (?, ?, ?, clock_timestamp())"
                        + " RETURNING id",
                Long.class,
                job,
                fire,
                instance);
        return Objects.requireNonNull(id);
    }

    static void ended(JdbcTemplate jdbc, long id) {
        jdbc.update("UPDATE test_runs SET ended_at = clock_timestamp() WHERE id = ?", id);
    }

    /** A fixed-delay job whose runs take 4 s. */
    static class FrozenJobs {
        private final JdbcTemplate jdbc;
        private final String instance;

        FrozenJobs(DataSource dataSource, String instanceName) {
            this.jdbc = new JdbcTemplate(dataSource);
            this.instance = instanceName;
        }

        @Scheduled(fixedDelay = 200)
        void slow() {
            long id = started(
                    jdbc,
                    "slow",
                    JdbcDialect.POSTGRESQL.bind(Objects.requireNonNull(ClusteredJobs.currentFire())),
                    instance);
            DurableTasks tasks = TASKS.get();
            if (tasks != null && SCHEDULES.compareAndSet(true, false)) {
                tasks.schedule("slowTask", "k1", Duration.ZERO, null);
            }
            NoOverlapTest.work(Duration.ofSeconds(4));
            ended(jdbc, id);
        }
    }

    /** A durable task handler whose runs take 4 s. */
    static final class SlowHandler implements DurableTaskHandler<String> {
        private final JdbcTemplate jdbc;
        private final String instance;

        SlowHandler(JdbcTemplate jdbc, String instance) {
            this.jdbc = jdbc;
            this.instance = instance;
        }

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            long id = started(jdbc, "durable", null, instance);
            NoOverlapTest.work(Duration.ofSeconds(4));
            ended(jdbc, id);
        }
    }
}
