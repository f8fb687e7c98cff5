package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.LoggedWarnings;
import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableSchedule;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A healthy cluster of three instances on one database, as an operator runs it: started together on
 * an empty database, firing clustered jobs (cron, fixed rate, fixed delay), a job that runs on every
 * instance and durable tasks (one recurring, one-offs), then one instance stopped gracefully and
 * restarted under its name. Every event at WARN or above from every logger is captured.
 *
 * <p>The instances fire for {@value #DEFAULT_SECONDS} s by default; the system property {@value
 * #SECONDS_PROPERTY} sets another length (the Maven profile {@code long}, which runs it, sets 60).
 */
@Tag("long")
class HealthyClusterLogTest {

    static final String SECONDS_PROPERTY = "timed-jobs.test.healthy-run-seconds";

    static final long DEFAULT_SECONDS = 10;

    private static final Duration RUN = Duration.ofSeconds(Long.getLong(SECONDS_PROPERTY, DEFAULT_SECONDS));

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    /** Durable executions seen, by every instance of the running test. */
    private static final AtomicLong DURABLE_RUNS = new AtomicLong();

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * Through a healthy run (a start of three together, fires, a graceful stop and a restart under
     * the same name), nothing logs at WARN or above: neither the library nor the driver nor the pool.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldLogNothingAtWarnOrAboveThroughAHealthyRun(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        RunLog log = new RunLog();
        // A lease longer than the shrunk 5 s: a heartbeat thread starved that long on a busy machine
        // would rightly warn of its silence, which is no fault of the code under test.
        TestInstance.Settings settings = TestInstance.Settings.shrunk().withLease(Duration.ofSeconds(15));
        DURABLE_RUNS.set(0);
        try (LoggedWarnings warnings = LoggedWarnings.capture()) {
            List<CompletableFuture<ConfigurableApplicationContext>> starts = new ArrayList<>();
            for (String name : List.of("a", "b", "c")) {
                starts.add(CompletableFuture.supplyAsync(() -> start(dataSource, name, settings, log)));
            }
            for (CompletableFuture<ConfigurableApplicationContext> start : starts) {
                instances.add(start.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            }
            long fires = RUN.toSeconds();
            await().atMost(RUN.plus(WAIT)).until(() -> log.count("cron") >= fires);

            ConfigurableApplicationContext stopped = instances.remove(2);
            stopped.close();
            instances.add(start(dataSource, "c", settings, log));
            long before = log.count("cron");
            long durableBefore = DURABLE_RUNS.get();
            await().atMost(WAIT).until(() -> log.count("cron") >= before + 3 && DURABLE_RUNS.get() > durableBefore);
            instances.forEach(ConfigurableApplicationContext::close);
            instances.clear();

            System.out.println("Healthy run on " + kind + ", " + RUN.toSeconds() + " s of fires: events per level "
                    + warnings.countsPerLevel() + " (INFO and below from io.timedjobs only)");
            assertThat(warnings.lines()).isEmpty();
        }
        assertThat(log.count("local")).as("a job run on every instance ran").isPositive();
        assertThat(log.count("delay")).isPositive();
        assertThat(log.runsPerFire("cron").values()).allMatch(count -> count == 1);
        assertThat(DURABLE_RUNS.get()).isPositive();
    }

    private static ConfigurableApplicationContext start(
            DataSource dataSource, String name, TestInstance.Settings settings, RunLog log) {
        new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        return TestInstance.start(
                dataSource, name, Duration.ZERO, settings, log, HealthyJobs.class, DurableTasksOfAnInstance.class);
    }

    /** Clustered jobs of every kind, a job run on every instance, and one-off durable tasks scheduled. */
    static class HealthyJobs {
        private final RunLog log;
        private final String instance;
        private final DurableTaskEngine engine;

        HealthyJobs(RunLog log, String instanceName, DurableTaskEngine engine) {
            this.log = log;
            this.instance = instanceName;
            this.engine = engine;
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            log.record("cron", instance, System.nanoTime());
        }

        @Scheduled(fixedRate = 500)
        void rate() {
            log.record("rate", instance, System.nanoTime());
        }

        @Scheduled(fixedDelay = 500)
        void delay() {
            log.record("delay", instance, System.nanoTime());
        }

        /** Schedules a one-off durable task, due soon, on whichever instance runs this fire. */
        @Scheduled(fixedRate = 1000)
        void scheduleOneOff() {
            engine.tasks().schedule("work", "one-off-" + System.nanoTime(), Duration.ofMillis(200), "x");
        }

        @RunOnEveryInstance
        @Scheduled(fixedRate = 500)
        void local() {
            log.record("local", instance, System.nanoTime());
        }
    }

    /** A durable task engine beside the instance's heartbeat, with a recurring task every instance schedules. */
    @Configuration(proxyBeanMethods = false)
    static class DurableTasksOfAnInstance {

        @Bean
        DurableTaskEngine durableTaskEngine(ClusterDatabase database, ClusterHeartbeat heartbeat, DatabaseClock clock) {
            return DurableTaskEngine.builder(database)
                    .handler("work", new CountingHandler())
                    .heartbeat(heartbeat, clock)
                    .transactionManager(new DataSourceTransactionManager(database.dataSource()))
                    .build();
        }

        @Bean
        SmartLifecycle durableTaskLifecycle(DurableTaskEngine engine) {
            return new SmartLifecycle() {
                @Override
                public void start() {
                    engine.start();
                    engine.tasks()
                            .scheduleRecurring("work", "recurring", DurableSchedule.every(Duration.ofMillis(500)), "r");
                }

                @Override
                public void stop() {
                    engine.stop(Duration.ofSeconds(5));
                }

                @Override
                public boolean isRunning() {
                    return engine.isRunning();
                }

                @Override
                public int getPhase() {
                    return ClusterHeartbeat.PHASE + 1;
                }
            };
        }
    }

    /** Counts its executions. */
    static final class CountingHandler implements DurableTaskHandler<String> {
        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            DURABLE_RUNS.incrementAndGet();
        }
    }
}
