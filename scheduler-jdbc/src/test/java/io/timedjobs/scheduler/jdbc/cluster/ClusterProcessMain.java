package io.timedjobs.scheduler.jdbc.cluster;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * For tests: a small application run as a separate JVM by {@link SeparateProcessesTest}. Arguments:
 * JDBC URL and instance name. Its jobs write their runs to the table {@code test_runs}.
 */
public final class ClusterProcessMain {

    private ClusterProcessMain() {}

    public static void main(String[] args) throws InterruptedException {
        String url = args[0];
        String name = args[1];
        HikariDataSource dataSource = TestDatabases.pooled(url, 10_000);
        ConfigurableApplicationContext context = TestInstance.start(
                dataSource, name, Duration.ZERO, TestInstance.Settings.shrunk(), new RunLog(), ProcessJobs.class);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            context.close();
            dataSource.close();
            closed.countDown();
        }));
        closed.await();
    }

    /** A cron job every second, and a fixed-delay job whose runs take 4 s. */
    static class ProcessJobs {
        private final JdbcTemplate jdbc;
        private final String instance;

        ProcessJobs(DataSource dataSource, String instanceName) {
            this.jdbc = new JdbcTemplate(dataSource);
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            started("cron");
        }

        @Scheduled(fixedDelay = 200)
        void slow() {
            long id = started("slow");
            NoOverlapTest.work(Duration.ofSeconds(4));
            jdbc.update("UPDATE test_runs SET ended_at = clock_timestamp() WHERE id = ?", id);
        }

        private long started(String job) {
            Long id = jdbc.queryForObject(
                    "INSERT INTO test_runs (job, fire_at, instance_name, started_at) VALUES (?, ?, ?, clock_timestamp())"
                            + " RETURNING id",
                    Long.class,
                    job,
                    JdbcDialect.POSTGRESQL.bind(Objects.requireNonNull(ClusteredJobs.currentFire())),
                    instance);
            return Objects.requireNonNull(id);
        }
    }
}
