package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The timedJobs health indicator, as a bean of the running Spring Boot line's HealthIndicator
 * type, read through that type's own methods.
 */
class SchedulerHealthTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(SchedulerAutoConfiguration.class, SchedulerHealthAutoConfiguration.class));

    /** With scheduler-jdbc on a database: clustered jobs and durable tasks. */
    private final ApplicationContextRunner clusterRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchedulerAutoConfiguration.class,
                    ClusterAutoConfiguration.class,
                    DurableTaskAutoConfiguration.class,
                    SchedulerHealthAutoConfiguration.class))
            .withUserConfiguration(DailyReport.class)
            .withPropertyValues(
                    "timed-jobs.cluster.poll-interval=100ms",
                    "timed-jobs.cluster.lease=2s",
                    "timed-jobs.shutdown.execute-existing-delayed-tasks=false");

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class DailyReport {
        @Bean
        Report report() {
            return new Report();
        }
    }

    static class Report {
        @Scheduled(cron = "0 0 6 * * *")
        void send() {}
    }

    /** A database whose connections the test can refuse, as an outage would. */
    static final class SwitchableDataSource extends DelegatingDataSource {
        volatile boolean down;

        SwitchableDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (down) {
                throw new SQLException("Connection refused (switched off by the test)");
            }
            return super.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            if (down) {
                throw new SQLException("Connection refused (switched off by the test)");
            }
            return super.getConnection(username, password);
        }
    }

    private static HealthApi api() {
        HealthApi api = HealthApi.find(SchedulerHealthTest.class.getClassLoader());
        assertThat(api).isNotNull();
        return api;
    }

    private static Object indicator(ApplicationContext context) {
        Map<String, ?> indicators = context.getBeansOfType(api().healthIndicatorType());
        assertThat(indicators).containsKey("timedJobsHealthIndicator");
        return indicators.get("timedJobsHealthIndicator");
    }

    /** Reads code and details through the Health type of whichever Boot line runs. */
    private static Map<String, Object> health(Object indicator) throws Exception {
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        Method getStatus = health.getClass().getMethod("getStatus");
        Object status = getStatus.invoke(health);
        String code = (String) status.getClass().getMethod("getCode").invoke(status);
        @SuppressWarnings("unchecked")
        Map<String, Object> details =
                (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health);
        return Map.of("status", code, "details", details);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Map<String, Object> health) {
        return (Map<String, Object>) health.get("details");
    }

    /** UP while running, with queue depth, pool size, active tasks and lateness. */
    @Test
    void shouldReportUpWithDetails() {
        runner.withPropertyValues("timed-jobs.pool-size=3").run(context -> {
            Map<String, Object> health = health(indicator(context));

            assertThat(health.get("status")).isEqualTo("UP");
            assertThat(details(health))
                    .containsEntry("queueDepth", 0)
                    .containsEntry("poolSize", 3)
                    .containsEntry("activeTasks", 0)
                    .containsEntry("lateness", "PT0S")
                    .doesNotContainKey("late");
        });
    }

    /**
     * Above the lateness threshold: status LATE and late=true; never DOWN. Below it again: UP.
     */
    @Test
    void shouldReportLateAboveThreshold() {
        ManualTicker ticker = new ManualTicker();
        runner.withPropertyValues("timed-jobs.pool-size=1", "timed-jobs.health.lateness-threshold=1m")
                .withBean(LeaderFollowerSchedulerCustomizer.class, () -> scheduler -> scheduler.setTicker(ticker))
                .run(context -> {
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    CountDownLatch started = new CountDownLatch(1);
                    CountDownLatch release = new CountDownLatch(1);
                    scheduler.schedule(
                            () -> {
                                started.countDown();
                                try {
                                    release.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            scheduler.getClock().instant());
                    started.await();
                    Instant dueSoon = scheduler.getClock().instant().plusSeconds(10);
                    scheduler.schedule(() -> {}, dueSoon);
                    Object indicator = indicator(context);
                    assertThat(details(health(indicator))).containsEntry("late", false);

                    ticker.advance(Duration.ofMinutes(2));

                    Map<String, Object> late = health(indicator);
                    assertThat(late.get("status")).isEqualTo("LATE");
                    assertThat(details(late))
                            .containsEntry("late", true)
                            .containsEntry("queueDepth", 1)
                            .containsEntry("activeTasks", 1)
                            .containsEntry("latenessThreshold", "PT1M");
                    release.countDown();
                    await().atMost(TestDelays.LONG)
                            .until(() -> health(indicator).get("status").equals("UP"));
                });
    }

    /** The indicator can be switched off the way Spring Boot's own are. */
    @Test
    void shouldBeSwitchedOffByProperty() {
        runner.withPropertyValues("management.health.timed-jobs.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("timedJobsHealthIndicator"));
    }

    /** Without the starter's scheduler there is nothing to report. */
    @Test
    void shouldBackOffWithoutOurScheduler() {
        runner.withPropertyValues("timed-jobs.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("timedJobsHealthIndicator"));
    }

    /**
     * With scheduler-jdbc and the database up: UP, with the database reachable, no refused job and
     * the count of failed durable tasks.
     */
    @Test
    void shouldReportTheClusterUpWithDetails() {
        clusterRunner
                .withBean(DataSource.class, ClusterAutoConfigurationTest::h2)
                .run(context -> {
                    Map<String, Object> health = health(indicator(context));

                    assertThat(health.get("status")).isEqualTo("UP");
                    assertThat(details(health))
                            .containsEntry("database", "UP")
                            .containsEntry("refusedJobs", Map.of())
                            .containsEntry("failedDurableTasks", 0L);
                });
    }

    /**
     * A clustered job this instance refuses: it restarts with the job's older definition (zone UTC)
     * while an instance of the current one (Asia/Tokyo) lives, so it stands by; status
     * REFUSED_JOBS, naming the job and why.
     */
    @Test
    void shouldReportRefusedJobWithItsReason() {
        DataSource database = ClusterAutoConfigurationTest.h2();
        ApplicationContextRunner utc = clusterRunner
                .withBean(DataSource.class, () -> database)
                .withPropertyValues("timed-jobs.cluster.time-zone=UTC");
        utc.run(context -> {
            ClusterDatabase tables = context.getBean(ClusterDatabase.class);
            await().atMost(TestDelays.LONG)
                    .until(() -> tables.jdbc()
                                    .queryForObject(
                                            "SELECT COUNT(*) FROM "
                                                    + tables.tables().jobs(),
                                            Long.class)
                            == 1L);
            assertThat(health(indicator(context)).get("status")).isEqualTo("UP");
        });

        clusterRunner
                .withBean(DataSource.class, () -> database)
                .withPropertyValues("timed-jobs.cluster.time-zone=Asia/Tokyo")
                .run(tokyo -> {
                    assertThat(health(indicator(tokyo)).get("status")).isEqualTo("UP");
                    utc.run(context -> {
                        Object indicator = indicator(context);
                        await().atMost(TestDelays.LONG)
                                .until(() -> health(indicator).get("status").equals(SchedulerHealth.REFUSED_JOBS));

                        @SuppressWarnings("unchecked")
                        Map<String, String> refused =
                                (Map<String, String>) details(health(indicator)).get("refusedJobs");
                        assertThat(refused).containsOnlyKeys("report.send");
                        assertThat(refused.get("report.send"))
                                .contains("in Asia/Tokyo")
                                .contains("in UTC");
                    });
                });
    }

    /**
     * While the database refuses connections: DOWN, the database UNREACHABLE with the outage's
     * length; UP again once it is back.
     */
    @Test
    void shouldReportDownWhileTheDatabaseIsUnreachable() {
        SwitchableDataSource database = new SwitchableDataSource(ClusterAutoConfigurationTest.h2());
        clusterRunner.withBean(DataSource.class, () -> database).run(context -> {
            Object indicator = indicator(context);
            assertThat(health(indicator).get("status")).isEqualTo("UP");

            database.down = true;
            await().atMost(TestDelays.LONG)
                    .until(() -> health(indicator).get("status").equals("DOWN"));
            Map<String, Object> down = details(health(indicator));
            assertThat(down).containsEntry("database", "UNREACHABLE").containsKey("databaseOutage");
            assertThat((Long) down.get("databaseFailures")).isPositive();

            database.down = false;
            await().atMost(TestDelays.LONG)
                    .until(() -> health(indicator).get("status").equals("UP"));
            assertThat(details(health(indicator)))
                    .containsEntry("database", "UP")
                    .doesNotContainKey("databaseOutage");
        });
    }
}
