package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The starter on a MariaDB DataSource (a real server; skipped, saying why, where none can be had):
 * with {@code initialize-schema=always} it creates the tables and runs a clustered job once per fire.
 */
class MariaDbAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class));

    @Test
    void shouldCreateTheTablesAndFireAClusteredJobOnMariaDb() {
        DataSource mariaDb = TestDatabases.newMariaDb();
        runner.withBean(DataSource.class, () -> mariaDb)
                .withUserConfiguration(SecondJob.class)
                .withPropertyValues(
                        "timed-jobs.jdbc.initialize-schema=always",
                        "timed-jobs.cluster.poll-interval=200ms",
                        "timed-jobs.cluster.time-zone=UTC")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ClusterDatabase database = context.getBean(ClusterDatabase.class);
                    assertThat(database.dialect()).isEqualTo(JdbcDialect.MARIADB);
                    SecondJob job = context.getBean(SecondJob.class);
                    await().atMost(Duration.ofSeconds(30)).until(() -> job.fires.size() >= 2);
                    assertThat(context.getBean(ClusteredJobs.class).jobNames())
                            .containsExactly("mariaDbAutoConfigurationTest.SecondJob.tick");
                    assertThat(database.jdbc().queryForObject("SELECT COUNT(*) FROM timed_jobs_fires", Integer.class))
                            .isGreaterThanOrEqualTo(2);
                    assertThat(Duration.between(job.fires.get(0), Instant.now()).abs())
                            .as("fires at their instants, whatever the server's zone")
                            .isLessThan(Duration.ofSeconds(30));
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class SecondJob {
        final List<Instant> fires = new CopyOnWriteArrayList<>();

        @Scheduled(cron = "* * * * * *")
        void tick() {
            fires.add(ClusteredJobs.currentFire());
        }
    }
}
