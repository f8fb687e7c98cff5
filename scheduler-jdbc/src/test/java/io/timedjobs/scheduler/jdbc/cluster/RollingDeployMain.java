package io.timedjobs.scheduler.jdbc.cluster;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * For tests: one instance of an application run as a separate JVM by {@link
 * RollingDeployProcessesTest}, deployed with one definition of its cron job. Arguments: JDBC URL,
 * instance name, the job's zone; system property {@code rolling.cron}: its cron expression. Its runs
 * go to the table {@code test_runs}. Prints "started" once its job is registered.
 */
public final class RollingDeployMain {

    private RollingDeployMain() {}

    public static void main(String[] args) throws InterruptedException {
        HikariDataSource dataSource = TestDatabases.pooled(args[0], 10_000);
        TestInstance.Settings settings = TestInstance.Settings.shrunk().withZone(ZoneId.of(args[2]));
        ConfigurableApplicationContext context =
                TestInstance.start(dataSource, args[1], Duration.ZERO, settings, new RunLog(), DeployedJob.class);
        System.out.println("started");
        System.out.flush();
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            context.close();
            dataSource.close();
            closed.countDown();
        }));
        closed.await();
    }

    /** The job whose definition changes from one deploy to the next. */
    static class DeployedJob {
        private final JdbcTemplate jdbc;
        private final String instance;

        DeployedJob(DataSource dataSource, String instanceName) {
            this.jdbc = new JdbcTemplate(dataSource);
            this.instance = instanceName;
        }

        @Scheduled(cron = "${rolling.cron}")
        void report() {
            jdbc.update(
                    "INSERT INTO test_runs (fire_at, instance_name, started_at) VALUES (?, ?, clock_timestamp())",
                    JdbcDialect.POSTGRESQL.bind(Objects.requireNonNull(ClusteredJobs.currentFire())),
                    instance);
        }
    }
}
