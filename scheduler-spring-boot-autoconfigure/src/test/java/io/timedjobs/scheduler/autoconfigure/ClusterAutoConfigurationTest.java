package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.timedjobs.scheduler.jdbc.TimedJobsDataSource;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.cluster.FirePlacement;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

class ClusterAutoConfigurationTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class));

    static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:cluster_autoconfig_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        dataSource.setUser("sa");
        return dataSource;
    }

    /** With a DataSource, the tables exist (in-memory: 'embedded'), and the instance is registered. */
    @Test
    void shouldRegisterTheInstanceOnTheDatabase() {
        runner.withUserConfiguration(OneDataSource.class)
                .withPropertyValues("timed-jobs.cluster.instance-name=web-1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(ClusterHeartbeat.class);
                    ClusterDatabase database = context.getBean(ClusterDatabase.class);
                    assertThat(database.dialect()).isEqualTo(JdbcDialect.H2);
                    assertThat(context.getBean(ClusterInstance.class).name()).isEqualTo("web-1");
                    assertThat(database.jdbc()
                                    .queryForList("SELECT instance_name FROM timed_jobs_instances", String.class))
                            .containsExactly("web-1");
                    assertThat(context.getBean(DatabaseClock.class).lastMeasurement())
                            .isNotNull();
                });
    }

    /** The clustered jobs spread their fires by default, and keep each where it ran last with fire-placement=sticky. */
    @Test
    void shouldHandTheFirePlacementToTheClusteredJobs() {
        runner.withUserConfiguration(OneDataSource.class)
                .run(context -> assertThat(context.getBean(ClusteredJobs.class).firePlacement())
                        .isEqualTo(FirePlacement.SPREAD));
        runner.withUserConfiguration(OneDataSource.class)
                .withPropertyValues("timed-jobs.cluster.fire-placement=sticky")
                .run(context -> assertThat(context.getBean(ClusteredJobs.class).firePlacement())
                        .isEqualTo(FirePlacement.STICKY));
    }

    /**
     * Without a DataSource, or with cluster.enabled=false, nothing of it exists (without one, {@link
     * ClusterDataSourceCheckAutoConfiguration} then refuses start-up; see {@link ClusterDataSourceCheckTest}).
     */
    @Test
    void shouldStayOffWithoutDataSourceOrWhenDisabled() {
        runner.run(context -> assertThat(context).doesNotHaveBean(ClusterInstance.class));
        runner.withUserConfiguration(OneDataSource.class)
                .withPropertyValues("timed-jobs.cluster.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ClusterInstance.class));
    }

    /** Of several DataSources, the one marked @TimedJobsDataSource holds the tables. */
    @Test
    void shouldUseTheQualifiedDataSource() {
        runner.withUserConfiguration(TwoDataSources.class).run(context -> {
            assertThat(context).hasNotFailed();
            DataSource ours = context.getBean("timedJobsDataSource", DataSource.class);
            assertThat(context.getBean(ClusterDatabase.class).dataSource()).isSameAs(ours);
            assertThat(new JdbcTemplate(ours)
                            .queryForObject("SELECT COUNT(*) FROM timed_jobs_instances", Integer.class))
                    .isEqualTo(1);
        });
    }

    /** Several DataSources and none marked: start-up fails naming the annotation. */
    @Test
    void shouldFailWithSeveralUnmarkedDataSources() {
        runner.withUserConfiguration(TwoUnmarkedDataSources.class)
                .run(context ->
                        assertThat(context).getFailure().rootCause().hasMessageContaining("@TimedJobsDataSource"));
    }

    /** A prefix that is not a plain identifier fails start-up naming the key. */
    @Test
    void shouldRefuseABadTablePrefix() {
        runner.withUserConfiguration(OneDataSource.class)
                .withPropertyValues("timed-jobs.jdbc.table-prefix=x;drop")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("timed-jobs.jdbc.table-prefix"));
    }

    /** 'never' with no tables fails start-up naming the script to run. */
    @Test
    void shouldNameTheScriptWhenTablesAreMissing() {
        runner.withUserConfiguration(OneDataSource.class)
                .withPropertyValues("timed-jobs.jdbc.initialize-schema=never")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("io/timedjobs/scheduler/jdbc/schema/h2/V1__timed_jobs.sql"));
    }

    /**
     * With @EnableScheduling, a @Scheduled job on our scheduler is clustered: it runs with a
     * recorded fire, and the scheduler.cluster meters count it.
     */
    @Test
    void shouldClusterScheduledJobsAndPublishMeters() {
        runner.withUserConfiguration(OneDataSource.class, ScheduledJob.class)
                .withBean(SimpleMeterRegistry.class)
                .withPropertyValues("timed-jobs.cluster.poll-interval=200ms", "timed-jobs.cluster.time-zone=UTC")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ClusteredJobs jobs = context.getBean(ClusteredJobs.class);
                    ScheduledJob job = context.getBean(ScheduledJob.class);
                    await().atMost(Duration.ofSeconds(30)).until(() -> job.fires.size() >= 2);
                    assertThat(jobs.jobNames()).containsExactly("clusterAutoConfigurationTest.ScheduledJob.tick");
                    assertThat(job.fires).doesNotContainNull();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> registry.get("scheduler.cluster.fires.won")
                                            .tag("scheduler", "taskScheduler")
                                            .functionCounter()
                                            .count()
                                    >= 2);
                    assertThat(registry.get("scheduler.cluster.fires.skipped")
                                    .tag("reason", "database-down")
                                    .functionCounter()
                                    .count())
                            .isZero();
                    assertThat(registry.get("scheduler.cluster.claim")
                                    .functionTimer()
                                    .count())
                            .isGreaterThanOrEqualTo(2);
                    assertThat(registry.find("scheduler.cluster.clock.offset").timeGauge())
                            .isNotNull();
                    assertThat(registry.find("scheduler.cluster.run-lease.expiries")
                                    .functionCounter())
                            .isNotNull();
                });
    }

    /**
     * With 'never', tables that the application's migrations create (here a stand-in for Flyway's
     * bean, lazy so that nothing else would create it first) are checked only after those ran.
     */
    @Test
    void shouldCheckTheTablesAfterTheApplicationsMigrations() {
        runner.withUserConfiguration(OneDataSource.class, StandInFlyway.class)
                .withPropertyValues("timed-jobs.jdbc.initialize-schema=never")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(StandInFlyway.class).migrated).isTrue();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class StandInFlyway {
        boolean migrated;

        @Bean
        @Lazy
        Object flywayInitializer(DataSource dataSource) {
            new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                    .initialize(SchemaInitializer.Mode.ALWAYS);
            migrated = true;
            return new Object();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class ScheduledJob {
        final List<Instant> fires = new CopyOnWriteArrayList<>();

        @Scheduled(fixedRate = 300)
        void tick() {
            fires.add(ClusteredJobs.currentFire());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneDataSource {
        @Bean
        DataSource dataSource() {
            return h2();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {
        @Bean
        DataSource appDataSource() {
            return h2();
        }

        @Bean
        @TimedJobsDataSource
        DataSource timedJobsDataSource() {
            return h2();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoUnmarkedDataSources {
        @Bean
        DataSource firstDataSource() {
            return h2();
        }

        @Bean
        DataSource secondDataSource() {
            return h2();
        }
    }
}
