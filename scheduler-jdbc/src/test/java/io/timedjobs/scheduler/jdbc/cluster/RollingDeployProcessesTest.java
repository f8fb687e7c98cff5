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
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A rolling deploy as operators run it, in separate JVMs on one embedded PostgreSQL: three instances
 * on definition A (every 2 s, UTC) are replaced one by one with instances on definition B (every 3 s,
 * Asia/Tokyo), and an instance of A restarts after the switch. The database enforces the switch:
 * the A instances still running after it keep trying their fires, and none is recorded.
 */
class RollingDeployProcessesTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));
    private static final String CRON_A = "*/2 * * * * *";
    private static final String CRON_B = "*/3 * * * * *";

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
     * B fires from the first B instance's start, A never after it, no nominal instant runs twice,
     * B loses no fire after the switch, and the restarted A instance does not take the job back.
     */
    @Test
    void shouldSwitchOnceAtTheFirstNewInstanceAndKeepTheOldOnesOut() throws Exception {
        String database = TestDatabases.newPostgresDatabaseName();
        String url = "jdbc:postgresql://localhost:" + TestDatabases.postgresPort() + "/" + database;
        DataSource dataSource = TestDatabases.pooled(url, 10_000);
        new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE test_runs (fire_at TIMESTAMP WITH TIME ZONE NOT NULL,"
                + " instance_name VARCHAR(50) NOT NULL, started_at TIMESTAMP WITH TIME ZONE NOT NULL)");

        for (String name : List.of("a1", "a2", "a3")) {
            launch(name, url, CRON_A, "UTC");
        }
        await().atMost(WAIT).until(() -> count(jdbc, "SELECT COUNT(*) FROM test_runs") >= 2);

        Instant b1Launched = now(jdbc);
        launch("b1", url, CRON_B, "Asia/Tokyo");
        Instant switched = jdbc.queryForObject("SELECT defined_at FROM timed_jobs_jobs", OffsetDateTime.class)
                .toInstant();
        assertThat(jdbc.queryForObject("SELECT defined_by FROM timed_jobs_jobs", String.class))
                .isEqualTo("b1");
        stop("a1");
        launch("b2", url, CRON_B, "Asia/Tokyo");
        stop("a2");
        launch("b3", url, CRON_B, "Asia/Tokyo");
        launch("a4", url, CRON_A, "UTC"); // an old instance restarting after the switch, beside a3
        stop("a3");
        Instant lastStarted = now(jdbc);
        await().atMost(WAIT)
                .until(() -> count(
                                jdbc,
                                "SELECT COUNT(*) FROM test_runs WHERE fire_at > ?",
                                JdbcDialect.POSTGRESQL.bind(lastStarted.plusSeconds(1)))
                        >= 3);
        Instant end = now(jdbc);

        assertThat(switched).as("the switch is b1's start").isBetween(b1Launched, b1Launched.plus(WAIT));
        assertThat(count(
                        jdbc,
                        "SELECT COUNT(*) FROM (SELECT fire_at FROM test_runs GROUP BY fire_at HAVING COUNT(*) > 1) d"))
                .as("nominal instants run twice")
                .isZero();
        List<String> afterSwitch = jdbc.queryForList(
                "SELECT DISTINCT instance_name FROM test_runs WHERE fire_at > ?",
                String.class,
                JdbcDialect.POSTGRESQL.bind(switched));
        assertThat(afterSwitch).as("instances that ran after the switch").allMatch(name -> name.startsWith("b"));
        assertThat(jdbc.queryForObject("SELECT time_zone FROM timed_jobs_jobs", String.class))
                .isEqualTo("Asia/Tokyo");

        // B's fires, every 3 s, all there from the first one after the switch up to the end.
        TreeSet<Instant> fires = new TreeSet<>();
        jdbc.query(
                "SELECT fire_at FROM test_runs WHERE fire_at > ?",
                rs -> {
                    fires.add(rs.getObject(1, OffsetDateTime.class).toInstant());
                },
                JdbcDialect.POSTGRESQL.bind(switched));
        assertThat(fires).isNotEmpty();
        List<Instant> missing = new ArrayList<>();
        for (Instant fire = fires.first(); fire.isBefore(end.minusSeconds(1)); fire = fire.plusSeconds(3)) {
            if (!fires.contains(fire)) {
                missing.add(fire);
            }
        }
        assertThat(missing)
                .as("B's fires missing after the switch, of %s", fires)
                .isEmpty();
        assertThat(fires.first()).as("B's first fire").isBefore(switched.plusSeconds(4));
        System.out.println("RollingDeployProcessesTest: switch "
                + Duration.between(b1Launched, switched).toMillis() + " ms after b1's launch; " + fires.size()
                + " B fires after it, none missing, none twice");
    }

    private void launch(String name, String url, String cron, String zone) throws IOException {
        ProcessBuilder builder = ChildJvm.builder(
                RollingDeployMain.class,
                List.of("-Drolling.cron=" + cron, "-Xmx128m", "-XX:TieredStopAtLevel=1"),
                url,
                name,
                zone);
        Process process = builder.start();
        processes.put(name, process);
        assertThat(ChildJvm.readUntil(process, "started"))
                .as("%s started", name)
                .isNotNull();
        drain(process, Path.of("target", "rolling-deploy-" + name + ".log"));
    }

    /** Copies the rest of a child's output to a file, so that a full pipe never blocks the child. */
    private static void drain(Process process, Path log) {
        Thread drainer = new Thread(
                () -> {
                    try (InputStream output = process.getInputStream()) {
                        Files.copy(output, log, StandardCopyOption.REPLACE_EXISTING);
                    } catch (IOException e) {
                        // the child is gone; its log ends here
                    }
                },
                "drain-" + log.getFileName());
        drainer.setDaemon(true);
        drainer.start();
    }

    private void stop(String name) throws InterruptedException {
        Process process = processes.remove(name);
        process.destroy(); // SIGTERM: a graceful stop, as a rolling deploy does
        assertThat(process.waitFor(TestDelays.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS))
                .as("%s stopped", name)
                .isTrue();
    }

    private static Instant now(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT clock_timestamp()", OffsetDateTime.class)
                .toInstant();
    }

    private static int count(JdbcTemplate jdbc, String sql, Object... args) {
        Integer count = jdbc.queryForObject(sql, Integer.class, args);
        return count == null ? 0 : count;
    }
}
