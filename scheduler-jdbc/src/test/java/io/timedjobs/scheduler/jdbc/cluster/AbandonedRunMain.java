package io.timedjobs.scheduler.jdbc.cluster;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
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
 * For tests: a small application run as a separate JVM by {@link AbandonedRunProcessesTest}, on the
 * database the URL names (PostgreSQL or MariaDB), recording its runs in the run history. Arguments:
 * JDBC URL and instance name. Its one job, a cron job every second whose runs take 4 s, writes its
 * runs to the table {@code test_runs}.
 */
public final class AbandonedRunMain {

    private AbandonedRunMain() {}

    public static void main(String[] args) throws InterruptedException {
        HikariDataSource dataSource = TestDatabases.pooled(args[0], 10_000);
        ConfigurableApplicationContext context = TestInstance.start(
                dataSource,
                args[1],
                Duration.ZERO,
                TestInstance.Settings.shrunk(),
                RunHistorySettings.defaults(),
                new RunLog(),
                SlowCron.class);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            context.close();
            dataSource.close();
            closed.countDown();
        }));
        closed.await();
    }

    /** A cron job every second whose runs take 4 s: most of its fires find the previous run going. */
    static class SlowCron {
        private final JdbcTemplate jdbc;
        private final String instance;
        private final JdbcDialect dialect;

        SlowCron(DataSource dataSource, String instanceName) {
            this.jdbc = new JdbcTemplate(dataSource);
            this.instance = instanceName;
            this.dialect = JdbcDialect.detect(dataSource);
        }

        @Scheduled(cron = "* * * * * *")
        void slow() {
            GeneratedKeyHolder key = new GeneratedKeyHolder();
            Object fire = dialect.bind(Objects.requireNonNull(ClusteredJobs.currentFire()));
            jdbc.update(
                    connection -> {
                        PreparedStatement insert = connection.prepareStatement(
                                "INSERT INTO test_runs (fire_at, instance_name, started_at) VALUES (?, ?, "
                                        + dialect.now() + ")",
                                new String[] {"id"});
                        insert.setObject(1, fire);
                        insert.setString(2, instance);
                        return insert;
                    },
                    key);
            NoOverlapTest.work(Duration.ofSeconds(4));
            jdbc.update(
                    "UPDATE test_runs SET ended_at = " + dialect.now() + " WHERE id = ?",
                    Objects.requireNonNull(key.getKey()).longValue());
        }
    }
}
