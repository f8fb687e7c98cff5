package io.timedjobs.scheduler.jdbc.cluster;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * For tests: a small application run as a separate JVM by {@link SeparateProcessesTest}, on the
 * database the URL names (PostgreSQL or MariaDB). Arguments:
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

        private final JdbcDialect dialect;

        ProcessJobs(DataSource dataSource, String instanceName) {
            this.jdbc = new JdbcTemplate(dataSource);
            this.instance = instanceName;
            this.dialect = JdbcDialect.detect(dataSource);
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            started("cron");
        }

        @Scheduled(fixedDelay = 200)
        void slow() {
            long id = started("slow");
            NoOverlapTest.work(Duration.ofSeconds(4));
            jdbc.update("UPDATE test_runs SET ended_at = " + dialect.now() + " WHERE id = ?", id);
        }

        private long started(String job) {
            GeneratedKeyHolder key = new GeneratedKeyHolder();
            Object fire = dialect.bind(Objects.requireNonNull(ClusteredJobs.currentFire()));
            jdbc.update(
                    connection -> {
                        PreparedStatement insert = connection.prepareStatement(
                                "INSERT INTO test_runs (job, fire_at, instance_name, started_at) VALUES (?, ?, ?, "
                                        + dialect.now() + ")",
                                new String[] {"id"});
                        insert.setString(1, job);
                        insert.setObject(2, fire);
                        insert.setString(3, instance);
                        return insert;
                    },
                    key);
            return Objects.requireNonNull(key.getKey()).longValue();
        }
    }
}
