package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.dashboard.ActionResult;
import io.timedjobs.scheduler.dashboard.TimedJobsEndpoint;
import io.timedjobs.scheduler.dashboard.TimedJobsView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterJobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.JobView;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The timedjobs endpoint with scheduler-jdbc on H2: instances, durable tasks, retry and cancel. */
class TimedJobsClusterReportTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchedulerAutoConfiguration.class,
                    ClusterAutoConfiguration.class,
                    DurableTaskAutoConfiguration.class,
                    TimedJobsDashboardAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues(
                    "timed-jobs.cluster.poll-interval=100ms",
                    "timed-jobs.cluster.lookahead=1s",
                    "timed-jobs.cluster.lease=2s",
                    "timed-jobs.durable.max-attempts=1",
                    "timed-jobs.shutdown.execute-existing-delayed-tasks=false");

    /** Fails its first run, succeeds after. */
    static final class Mail implements DurableTaskHandler<String> {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("mail server down");
            }
        }
    }

    static class Digest {
        @Scheduled(fixedRate = 3_600_000)
        void send() {}
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class App {
        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        @Bean
        Mail mail() {
            return new Mail();
        }

        @Bean
        Digest digest() {
            return new Digest();
        }
    }

    /**
     * A failed durable task is counted and listed with its last error; retry runs it again, and the
     * instance and its clustered job are listed.
     */
    @Test
    void shouldShowAndRetryFailedDurableTasks() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            DurableTasks tasks = context.getBean(DurableTasks.class);
            tasks.schedule("mail", "welcome-7", Duration.ZERO, "hello");
            await().atMost(TestDelays.LONG)
                    .until(() -> tasks.find("mail", "welcome-7")
                            .map(task -> task.state() == DurableTaskState.FAILED)
                            .orElse(false));

            TimedJobsView view = endpoint.timedJobs();
            assertThat(view.cluster()).isNotNull();
            String instance = context.getBean(ClusterInstance.class).name();
            assertThat(view.cluster().instance()).isEqualTo(instance);
            assertThat(view.cluster().instances())
                    .anySatisfy(i -> assertThat(i.name()).isEqualTo(instance));
            assertThat(view.cluster().durable().counts())
                    .containsEntry("FAILED", 1L)
                    .containsEntry("PENDING", 0L);
            assertThat(view.cluster().durable().failed()).singleElement().satisfies(failed -> {
                assertThat(failed.handler()).isEqualTo("mail");
                assertThat(failed.key()).isEqualTo("welcome-7");
                assertThat(failed.lastError()).contains("mail server down");
            });
            assertThat(view.jobs())
                    .extracting(JobView::name, JobView::clustered, JobView::trigger)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("digest.send", true, "every 1h"));

            ActionResult retry = endpoint.durableTask("mail", "welcome-7", "retry");
            assertThat(retry.done()).as(retry.message()).isTrue();
            await().atMost(TestDelays.LONG)
                    .until(() -> tasks.find("mail", "welcome-7").isEmpty());
            assertThat(context.getBean(Mail.class).runs).hasValue(2);
        });
    }

    /**
     * Pausing a clustered job through the endpoint writes the flag in its row, which every instance
     * reads; the view shows it paused, and resume clears it.
     */
    @Test
    void shouldPauseAClusteredJobOnEveryInstance() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            ClusterDatabase database = context.getBean(ClusterDatabase.class);
            // The job's row is written when the scheduler first asks for its next fire.
            await().atMost(TestDelays.LONG)
                    .until(() -> database.jdbc()
                                    .queryForObject(
                                            "SELECT COUNT(*) FROM "
                                                    + database.tables().jobs() + " WHERE job_name = 'digest.send'",
                                            Long.class)
                            == 1L);

            ActionResult pause = endpoint.job("digest.send", "pause");
            assertThat(pause.done()).as(pause.message()).isTrue();
            assertThat(pause.message()).contains("paused on every instance");
            assertThat(pausedFlag(database)).isTrue();
            assertThat(endpoint.timedJobs().jobs())
                    .singleElement()
                    .satisfies(job -> assertThat(job.paused()).isTrue());

            ActionResult resume = endpoint.job("digest.send", "resume");
            assertThat(resume.done()).as(resume.message()).isTrue();
            assertThat(pausedFlag(database)).isFalse();
            assertThat(endpoint.timedJobs().jobs())
                    .singleElement()
                    .satisfies(job -> assertThat(job.paused()).isFalse());
        });
    }

    private static boolean pausedFlag(ClusterDatabase database) {
        return Boolean.TRUE.equals(database.jdbc()
                .queryForObject(
                        "SELECT paused FROM " + database.tables().jobs() + " WHERE job_name = 'digest.send'",
                        Boolean.class));
    }

    /** Retry and cancel of a task that does not exist, or retry of one not failed, are refused. */
    @Test
    void shouldRefuseMissingOrNotFailedTasks() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            ActionResult retry = endpoint.durableTask("mail", "nobody", "retry");
            assertThat(retry.done()).isFalse();
            assertThat(retry.message()).isEqualTo("No durable task mail/nobody");
            assertThat(endpoint.cancel("mail", "nobody").message()).isEqualTo("No durable task mail/nobody");

            DurableTasks tasks = context.getBean(DurableTasks.class);
            tasks.schedule("mail", "later", Duration.ofHours(1), "hello");
            assertThat(endpoint.durableTask("mail", "later", "retry").message())
                    .isEqualTo("Durable task mail/later is PENDING, not FAILED");
            ActionResult cancel = endpoint.cancel("mail", "later");
            assertThat(cancel.done()).isTrue();
            assertThat(tasks.find("mail", "later")).isEmpty();
        });
    }

    /** Name of the clustered job of {@link Ticking}. */
    private static final String TICK = "ticker.tick";

    static class Ticker {
        @Scheduled(fixedRate = 200)
        void tick() {}
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Ticking {
        @Bean
        Ticker ticker() {
            return new Ticker();
        }
    }

    /** One instance of an application with a job firing every 200 ms, on a database it shares. */
    private static ApplicationContextRunner instance(DataSource database, String name) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class,
                        ClusterAutoConfiguration.class,
                        TimedJobsDashboardAutoConfiguration.class))
                .withUserConfiguration(Ticking.class)
                // Shared by both instances: closed by neither.
                .withBean(DataSource.class, () -> new DelegatingDataSource(database))
                .withPropertyValues(
                        "timed-jobs.jdbc.initialize-schema=always",
                        "timed-jobs.cluster.instance-name=" + name,
                        "timed-jobs.cluster.poll-interval=100ms",
                        "timed-jobs.cluster.lease=2s",
                        "timed-jobs.shutdown.execute-existing-delayed-tasks=false");
    }

    private static long won(ClusteredJobs jobs) {
        return jobs.stats().job(TICK).won();
    }

    private static long lost(ClusteredJobs jobs) {
        return jobs.stats().job(TICK).skipped().get(SkipReason.LOST);
    }

    private static ClusterJobView clusterView(TimedJobsView view) {
        JobView job = view.jobs().stream()
                .filter(j -> j.name().equals(TICK))
                .findFirst()
                .orElseThrow();
        assertThat(job.cluster()).as("cluster part of %s", job).isNotNull();
        // The runs column counts only the fires this instance won, not those it tried.
        assertThat(job.runs()).isEqualTo(job.cluster().runsHere());
        return job.cluster();
    }

    /**
     * Two instances on one PostgreSQL: A alone, then both (each fire tried by both, won by one),
     * then B alone. Each endpoint shows the fires table's count, the runs its instance won (which
     * add up to that count, and match the table's rows by instance), the fires it lost, and that B
     * ran the last fire.
     */
    @Test
    void shouldShowFiresRunsAndLastRunnerAcrossTwoInstances() {
        DataSource database = TestDatabases.newPostgres();
        instance(database, "app-a").run(a -> {
            ClusteredJobs jobsA = a.getBean(ClusteredJobs.class);
            await().atMost(TestDelays.LONG).until(() -> won(jobsA) >= 2);
            instance(database, "app-b").run(b -> {
                ClusteredJobs jobsB = b.getBean(ClusteredJobs.class);
                // Both try every fire now, so each fire is lost by one of them.
                await().atMost(TestDelays.LONG).until(() -> lost(jobsA) + lost(jobsB) >= 2);
                a.stop();
                long wonByB = won(jobsB);
                await().atMost(TestDelays.LONG).until(() -> won(jobsB) >= wonByB + 2);
                b.stop();

                ClusterDatabase tables = a.getBean(ClusterDatabase.class);
                String fires = tables.tables().fires();
                long recorded = tables.jdbc()
                        .queryForObject("SELECT COUNT(*) FROM " + fires + " WHERE job_name = ?", Long.class, TICK);
                Map<String, Long> byInstance = new HashMap<>();
                tables.jdbc()
                        .query(
                                "SELECT instance_name, COUNT(*) AS n FROM " + fires
                                        + " WHERE job_name = ? GROUP BY instance_name",
                                rs -> {
                                    byInstance.put(rs.getString("instance_name"), rs.getLong("n"));
                                },
                                TICK);
                String lastBy = tables.jdbc()
                        .queryForObject(
                                "SELECT instance_name FROM " + fires
                                        + " WHERE job_name = ? ORDER BY fire_at DESC LIMIT 1",
                                String.class,
                                TICK);

                ClusterJobView seenByA =
                        clusterView(a.getBean(TimedJobsEndpoint.class).timedJobs());
                ClusterJobView seenByB =
                        clusterView(b.getBean(TimedJobsEndpoint.class).timedJobs());

                assertThat(seenByA.fires()).isEqualTo(recorded);
                assertThat(seenByB.fires()).isEqualTo(recorded);
                assertThat(seenByA.runsHere()).isPositive().isEqualTo(byInstance.get("app-a"));
                assertThat(seenByB.runsHere()).isPositive().isEqualTo(byInstance.get("app-b"));
                assertThat(seenByA.runsHere() + seenByB.runsHere()).isEqualTo(recorded);
                assertThat(seenByA.skippedHere().get("LOST")
                                + seenByB.skippedHere().get("LOST"))
                        .isGreaterThanOrEqualTo(2);
                assertThat(seenByA.skippedHere()).containsKeys("LOST", "PAUSED", "RUNNING", "HORIZON", "DATABASE_DOWN");
                assertThat(lastBy).isEqualTo("app-b");
                assertThat(seenByA.lastFireBy()).isEqualTo("app-b");
                assertThat(seenByB.lastFireBy()).isEqualTo("app-b");
                assertThat(seenByA.lastFireAt()).isNotNull().isEqualTo(seenByB.lastFireAt());
                assertThat(Instant.parse(seenByA.lastFireAt())).isBefore(Instant.now());
                assertThat(seenByA.refused()).isNull();
            });
        });
    }

    private static long pausedHere(ClusteredJobs jobs) {
        return jobs.stats().job(TICK).skipped().get(SkipReason.PAUSED);
    }

    /**
     * A paused fire's claim is a skip, never a run: A runs the job, it is paused, then B alone
     * claims its fires. B's endpoint counts as run only the fires that ran (the history's runs), the
     * claims as PAUSED, and names A, not the claimer, as the instance that ran the last fire.
     */
    @Test
    void shouldCountAPausedFiresClaimAsASkipNotARun() {
        DataSource database = TestDatabases.newPostgres();
        instance(database, "app-a").run(a -> {
            ClusteredJobs jobsA = a.getBean(ClusteredJobs.class);
            await().atMost(TestDelays.LONG).until(() -> won(jobsA) >= 2);
            ActionResult pause = a.getBean(TimedJobsEndpoint.class).job(TICK, "pause");
            assertThat(pause.done()).as(pause.message()).isTrue();
            a.stop();
            instance(database, "app-b").run(b -> {
                ClusteredJobs jobsB = b.getBean(ClusteredJobs.class);
                await().atMost(TestDelays.LONG).until(() -> pausedHere(jobsB) >= 3);
                b.stop();

                ClusterDatabase tables = b.getBean(ClusterDatabase.class);
                long recorded = tables.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM " + tables.tables().fires() + " WHERE job_name = ?",
                                Long.class,
                                TICK);
                long ran = tables.jdbc()
                        .queryForObject(
                                "SELECT COUNT(*) FROM " + tables.tables().runHistory()
                                        + " WHERE name = ? AND outcome <> 'SKIPPED'",
                                Long.class,
                                TICK);
                String lastRun = tables.jdbc()
                        .queryForObject(
                                "SELECT MAX(fire_at) FROM " + tables.tables().runHistory()
                                        + " WHERE name = ? AND outcome <> 'SKIPPED'",
                                java.time.OffsetDateTime.class,
                                TICK)
                        .toInstant()
                        .toString();

                ClusterJobView seenByB =
                        clusterView(b.getBean(TimedJobsEndpoint.class).timedJobs());

                assertThat(ran).isGreaterThanOrEqualTo(2);
                assertThat(seenByB.runsHere()).isZero();
                assertThat(seenByB.fires()).isEqualTo(ran);
                assertThat(seenByB.skippedInCluster().get("PAUSED"))
                        .isGreaterThanOrEqualTo(3)
                        .isEqualTo(recorded - ran);
                assertThat(seenByB.lastFireBy()).isEqualTo("app-a");
                assertThat(seenByB.lastFireAt()).isEqualTo(lastRun);
            });
        });
    }

    static class ZonedReport {
        @Scheduled(cron = "0 0 6 * * *")
        void send() {}
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Zoned {
        @Bean
        ZonedReport zonedReport() {
            return new ZonedReport();
        }
    }

    /**
     * A cron job whose current definition (Asia/Tokyo) came after this instance's (UTC) is refused
     * here while an instance of it lives: the endpoint gives the reason instead of a next run.
     */
    @Test
    void shouldShowWhyAJobIsRefusedHere() {
        DataSource database = ClusterAutoConfigurationTest.h2();
        ApplicationContextRunner zoned = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class,
                        ClusterAutoConfiguration.class,
                        TimedJobsDashboardAutoConfiguration.class))
                .withUserConfiguration(Zoned.class)
                .withBean(DataSource.class, () -> database)
                .withPropertyValues(
                        "timed-jobs.cluster.poll-interval=100ms",
                        "timed-jobs.shutdown.execute-existing-delayed-tasks=false");
        ApplicationContextRunner utc = zoned.withPropertyValues("timed-jobs.cluster.time-zone=UTC");
        utc.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            await().atMost(TestDelays.LONG)
                    .until(() -> endpoint.timedJobs().jobs().get(0).nextRun() != null);
            assertThat(endpoint.timedJobs().jobs().get(0).cluster().refused()).isNull();
        });
        zoned.withPropertyValues("timed-jobs.cluster.time-zone=Asia/Tokyo").run(tokyo -> {
            assertThat(tokyo.getBean(TimedJobsEndpoint.class)
                            .timedJobs()
                            .jobs()
                            .get(0)
                            .cluster()
                            .refused())
                    .isNull();
            utc.run(context -> {
                TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
                await().atMost(TestDelays.LONG)
                        .until(() ->
                                endpoint.timedJobs().jobs().get(0).cluster().refused() != null);
                JobView job = endpoint.timedJobs().jobs().get(0);
                assertThat(job.name()).isEqualTo("zonedReport.send");
                assertThat(job.nextRun()).isNull();
                assertThat(job.cluster().refused()).contains("in Asia/Tokyo").contains("in UTC");
            });
        });
    }
}
