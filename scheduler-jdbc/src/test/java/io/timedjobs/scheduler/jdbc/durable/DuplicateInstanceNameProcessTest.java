package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.ChildJvm;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Instances in JVMs of their own ({@link DurableTaskChildInstance}) under one configured name: a second
 * live one is refused, and one restarted after SIGKILL runs the claims its predecessor left.
 */
class DuplicateInstanceNameProcessTest {

    private static final int TASKS = 20;

    /** Process B under the name of running process A exits non-zero naming the key; A keeps running. */
    @Test
    void shouldRefuseASecondProcessUnderTheSameName() throws Exception {
        String url = newDatabaseUrl();
        DurableTestSupport.database(dataSource(url));
        // 300 ms polls: A beats at least once in B's watch of two polls even on a busy machine
        Process a = ChildJvm.builder(DurableTaskChildInstance.class, List.of(), url, "web-1", "0", "300")
                .start();
        try {
            assertThat(ChildJvm.readUntil(a, "CLAIMED")).isEqualTo("CLAIMED 0");
            Process b = ChildJvm.builder(DurableTaskChildInstance.class, List.of(), url, "web-1", "0", "300")
                    .start();
            try {
                assertThat(b.waitFor(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                        .as("B exits")
                        .isTrue();
                String output = read(b.getInputStream());
                assertThat(b.exitValue()).as(output).isNotZero();
                assertThat(output).contains("timed-jobs.cluster.instance-name").contains("'web-1'");
            } finally {
                b.destroyForcibly();
            }
            assertThat(a.isAlive()).isTrue();
        } finally {
            assertThat(ChildJvm.kill(a, Duration.ofSeconds(10))).isTrue();
        }
    }

    /**
     * A killed with SIGKILL while it holds claims and restarted under its name: the claims it left are
     * handed back at once and run at their due time (within lease plus poll), none stays CLAIMED.
     */
    @Test
    void shouldRunTheClaimsOfAProcessKilledAndRestartedUnderItsName() throws Exception {
        String url = newDatabaseUrl();
        ClusterDatabase database = DurableTestSupport.database(dataSource(url));
        DurableTaskSettings settings = DurableTestSupport.fastSettings();
        DurableTasks scheduling = DurableTaskEngine.builder(database)
                .handler("mail", new RecordingHandler())
                .build()
                .tasks();
        Instant due = Instant.now().plusSeconds(8);
        for (int i = 0; i < TASKS; i++) {
            scheduling.schedule("mail", "k" + i, due.plusMillis(i), null);
        }
        Process child = ChildJvm.builder(
                        DurableTaskChildInstance.class, List.of(), url, "web-1", Integer.toString(TASKS))
                .start();
        try {
            assertThat(ChildJvm.readUntil(child, "CLAIMED")).isEqualTo("CLAIMED " + TASKS);
        } finally {
            assertThat(ChildJvm.kill(child, Duration.ofSeconds(10))).isTrue();
        }

        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine restarted = DurableTaskEngine.builder(database)
                .instanceName("web-1")
                .handler("mail", handler)
                .settings(settings)
                .build();
        restarted.start();
        try {
            await().atMost(TestDelays.LONG).until(() -> handler.totalRuns() == TASKS);
            assertThat(handler.latenessMicros)
                    .as("each run's start after its due time, in microseconds")
                    .allSatisfy(micros -> assertThat(micros)
                            .isLessThan(settings.lease()
                                            .plus(settings.pollInterval())
                                            .toNanos()
                                    / 1000));
            assertThat(handler.runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
            assertThat(scheduling.find(DurableTaskQuery.all().state(DurableTaskState.CLAIMED)))
                    .isEmpty();
        } finally {
            restarted.stop(Duration.ofSeconds(5));
        }
    }

    private static String newDatabaseUrl() {
        return "jdbc:postgresql://localhost:" + TestDatabases.postgresPort() + "/"
                + TestDatabases.newPostgresDatabaseName() + "?user=postgres";
    }

    private static PGSimpleDataSource dataSource(String url) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        return dataSource;
    }

    private static String read(InputStream output) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        output.transferTo(bytes);
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
}
