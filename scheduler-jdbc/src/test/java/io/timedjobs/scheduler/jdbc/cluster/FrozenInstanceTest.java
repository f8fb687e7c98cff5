package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.ChildJvm;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two JVMs of {@link FrozenInstanceMain} on one embedded PostgreSQL; one is frozen with SIGSTOP
 * for longer than the lease (5 s here) while it runs a fixed-delay job and a durable task, as a long
 * garbage collection or a frozen virtual machine would, then resumed with SIGCONT.
 */
class FrozenInstanceTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    private final Map<String, Process> processes = new LinkedHashMap<>();

    @AfterEach
    void stopProcesses() throws Exception {
        for (Process process : processes.values()) {
            signal(process, "CONT");
            process.destroy();
        }
        for (Process process : processes.values()) {
            if (!process.waitFor(TestDelays.scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * The resumed instance learns at once that it was silent past its lease and names what it held;
     * its late end of the fixed-delay run leaves the job's row as the instance that took over wrote
     * it; its late completion of the durable task, which the other instance ran again, is refused
     * and logged at WARN.
     */
    @Test
    void shouldWarnAndFenceAnInstanceFrozenPastItsLease() throws Exception {
        String database = TestDatabases.newPostgresDatabaseName();
        String url = "jdbc:postgresql://localhost:" + TestDatabases.postgresPort() + "/" + database;
        DataSource dataSource = TestDatabases.pooled(url, 10_000);
        new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE test_runs (id BIGSERIAL PRIMARY KEY, job VARCHAR(20) NOT NULL,"
                + " fire_at TIMESTAMP WITH TIME ZONE, instance_name VARCHAR(50) NOT NULL,"
                + " started_at TIMESTAMP WITH TIME ZONE NOT NULL, ended_at TIMESTAMP WITH TIME ZONE)");
        File logA = launch("a", url, "schedule");
        launch("b", url, "wait");
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_instances", Integer.class) == 2);

        // a runs both the fixed-delay job and the durable task, each for at least 2 s more.
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(DISTINCT job) FROM test_runs WHERE instance_name = 'a'"
                                        + " AND ended_at IS NULL AND started_at > clock_timestamp() - INTERVAL '2 seconds'",
                                Integer.class)
                        == 2);
        Process a = processes.get("a");
        signal(a, "STOP");

        // b takes both over once a's heartbeat is older than the lease.
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(DISTINCT job) FROM test_runs WHERE instance_name = 'b'"
                                        + " AND ended_at IS NULL AND started_at > (SELECT MAX(started_at)"
                                        + " FROM test_runs WHERE instance_name = 'a')",
                                Integer.class)
                        == 2);
        Map<String, Object> before = slowRow(jdbc);
        assertThat(before.get("lease_owner"))
                .as("the run lease after the take-over")
                .isEqualTo("b");

        signal(a, "CONT");
        long resumed = System.nanoTime();
        String silence = awaitLine(logA, "had no heartbeat through for");
        Duration toWarn = Duration.ofNanos(System.nanoTime() - resumed);
        String lateEnd = awaitLine(logA, "Run of clustered job");
        // Found by the task and the refusal, so that an INFO in its place fails the assertion below
        // rather than the wait.
        String refused = awaitLine(logA, "slowTask/k1 (id ", "refused");
        Map<String, Object> after = slowRow(jdbc);
        Integer bStillRuns = jdbc.queryForObject(
                "SELECT COUNT(*) FROM test_runs WHERE instance_name = 'b' AND job = 'slow' AND ended_at IS NULL",
                Integer.class);
        System.out.println("Frozen instance warned " + toWarn.toMillis() + " ms after SIGCONT");

        assertThat(silence)
                .contains("WARN")
                .contains("longer than its lease")
                .contains("the run lease of job(s) [" + jobName(jdbc) + "]")
                .contains("slowTask/k1");
        assertThat(toWarn).as("time from SIGCONT to the warning").isLessThan(TestDelays.scaled(Duration.ofSeconds(3)));
        assertThat(lateEnd).contains("WARN").contains("ended after its run lease was taken over");
        assertThat(refused).contains("WARN").contains("it may have run again elsewhere");
        if (bStillRuns != null && bStillRuns > 0) {
            assertThat(after)
                    .as("the job's row while b's run goes on, after a's late end")
                    .isEqualTo(before);
        }
        assertThat(after.get("lease_owner"))
                .as("a no longer holds the run lease")
                .isNotEqualTo("a");
        assertThat(jdbc.queryForList(
                        "SELECT instance_name FROM test_runs WHERE job = 'durable' ORDER BY started_at", String.class))
                .as("runs of the durable task")
                .containsExactly("a", "b");
    }

    private static String jobName(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT job_name FROM timed_jobs_jobs WHERE kind = 'fixed-delay'", String.class);
    }

    private static Map<String, Object> slowRow(JdbcTemplate jdbc) {
        return jdbc.queryForMap(
                "SELECT next_fire_at, lease_owner, lease_until FROM timed_jobs_jobs" + " WHERE kind = 'fixed-delay'");
    }

    /** Waits for a line of the child's log that contains each of {@code texts}, and returns it. */
    private static String awaitLine(File log, String... texts) {
        return await().atMost(WAIT)
                .until(
                        () -> Files.readAllLines(log.toPath(), StandardCharsets.UTF_8).stream()
                                .filter(line -> java.util.Arrays.stream(texts).allMatch(line::contains))
                                .findFirst()
                                .orElse(""),
                        line -> !line.isEmpty());
    }

    private static void signal(Process process, String signal) throws IOException, InterruptedException {
        if (process.isAlive()) {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private File launch(String name, String url, String role) throws IOException {
        File output = new File("target", "frozen-instance-" + name + ".log");
        ProcessBuilder builder = ChildJvm.builder(
                        FrozenInstanceMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), url, name, role)
                .redirectOutput(output);
        processes.put(name, builder.start());
        return output;
    }
}
