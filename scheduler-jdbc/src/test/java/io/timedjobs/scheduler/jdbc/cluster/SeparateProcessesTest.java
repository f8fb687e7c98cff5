package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.ChildJvm;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Three JVMs of {@link ClusterProcessMain} on one embedded PostgreSQL, or one MariaDB server (in
 * zone +05:30; skipped, saying why, where none can be had), one JVM in another default time zone;
 * the one running the slow job is killed with SIGKILL mid-run.
 */
class SeparateProcessesTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    private final Map<String, Process> processes = new LinkedHashMap<>();

    @AfterEach
    void stopProcesses() throws InterruptedException {
        for (Process process : processes.values()) {
            process.destroy();
        }
        for (Process process : processes.values()) {
            if (!process.waitFor(TestDelays.scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * After the kill, every cron fire runs once, on the survivors; the killed instance's run lease
     * on the slow job expires once its heartbeat is older than the lease (5 s here), and a survivor
     * runs the job's next fire.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabases.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void shouldKeepEveryFireOnTheSurvivorsOfAKill(TestDatabases.Kind kind) throws IOException {
        String url = kind.newDatabaseUrl();
        DataSource dataSource = TestDatabases.pooled(url, 10_000);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcDialect dialect = database.dialect();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String instant = kind == TestDatabases.Kind.MARIADB ? "DATETIME(6)" : "TIMESTAMP WITH TIME ZONE";
        String id = kind == TestDatabases.Kind.MARIADB ? "BIGINT AUTO_INCREMENT" : "BIGSERIAL";
        jdbc.execute("CREATE TABLE test_runs (id " + id + " PRIMARY KEY, job VARCHAR(20) NOT NULL,"
                + " fire_at " + instant + " NOT NULL, instance_name VARCHAR(50) NOT NULL,"
                + " started_at " + instant + " NOT NULL, ended_at " + instant + ")");

        launch("p1", url, "UTC");
        launch("p2", url, "UTC");
        launch("p3", url, "Asia/Tokyo");
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_instances", Integer.class) == 3);

        // A slow run that started less than a second ago: it is surely still running.
        String victim = await().atMost(WAIT)
                .until(
                        () -> jdbc.queryForList(
                                "SELECT instance_name FROM test_runs WHERE job = 'slow' AND ended_at IS NULL"
                                        + " AND started_at > " + dialect.nowPlusMillis(),
                                String.class,
                                -1000L),
                        list -> !list.isEmpty())
                .get(0);
        processes.get(victim).destroyForcibly();
        Instant killedAt = dialect.currentTime(jdbc);
        // Beats go every half lease, so the victim's last one may lie up to 2.5 s before the kill.
        Instant lastBeat = jdbc.queryForObject(
                "SELECT heartbeat_at FROM timed_jobs_instances WHERE instance_name = ?",
                (rs, row) -> dialect.readInstant(rs, 1),
                victim);

        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM test_runs WHERE job = 'slow' AND started_at > ?",
                                Integer.class,
                                dialect.bind(killedAt))
                        > 0);
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM test_runs WHERE job = 'cron' AND fire_at > ?",
                                Integer.class,
                                dialect.bind(killedAt.plusSeconds(1)))
                        >= 4);

        Instant takeover = jdbc.queryForObject(
                "SELECT MIN(started_at) FROM test_runs WHERE job = 'slow' AND started_at > ?",
                (rs, row) -> dialect.readInstant(rs, 1),
                dialect.bind(killedAt));
        assertThat(Duration.between(lastBeat, takeover))
                .as("the killed run's lease lasts until its last heartbeat is 5 s old")
                .isGreaterThan(Duration.ofMillis(5000 - 300));
        assertThat(jdbc.queryForList(
                        "SELECT DISTINCT instance_name FROM test_runs WHERE started_at > ?",
                        String.class,
                        dialect.bind(killedAt)))
                .doesNotContain(victim);
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM (SELECT job, fire_at FROM test_runs GROUP BY job, fire_at"
                                + " HAVING COUNT(*) > 1) duplicates",
                        Integer.class))
                .as("fires that ran twice")
                .isZero();
        List<Instant> cronAfterKill = new ArrayList<>();
        jdbc.query(
                "SELECT fire_at FROM test_runs WHERE job = 'cron' AND fire_at > ? ORDER BY fire_at",
                rs -> {
                    cronAfterKill.add(dialect.readInstant(rs, 1));
                },
                dialect.bind(killedAt.plusSeconds(1)));
        for (int i = 1; i < cronAfterKill.size(); i++) {
            assertThat(Duration.between(cronAfterKill.get(i - 1), cronAfterKill.get(i)))
                    .as("cron fires after the kill: %s", cronAfterKill)
                    .isEqualTo(Duration.ofSeconds(1));
        }
    }

    private void launch(String name, String url, String timeZone) throws IOException {
        File output = new File("target", "cluster-process-" + name + ".log");
        ProcessBuilder builder = ChildJvm.builder(
                        ClusterProcessMain.class,
                        List.of("-Duser.timezone=" + timeZone, "-Xmx128m", "-XX:TieredStopAtLevel=1"),
                        url,
                        name)
                .redirectOutput(output);
        processes.put(name, builder.start());
    }
}
