package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.ChildJvm;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * An instance in another JVM killed with SIGKILL while it holds claims: another instance rescues them.
 * On PostgreSQL and on MariaDB (skipped, saying why, where no MariaDB server can be had).
 */
class DurableTaskKillTest {

    private static final int TASKS = 20;

    /** The claims of a JVM killed with SIGKILL are rescued within lease plus poll, and each task runs once. */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabases.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void shouldRescueTheClaimsOfAJvmKilledWithSigkill(TestDatabases.Kind kind) throws Exception {
        String url = kind.newDatabaseUrl();
        DataSource dataSource = new DriverManagerDataSource(url);
        ClusterDatabase database = DurableTestSupport.database(dataSource);
        DurableTaskEngine survivor = DurableTaskEngine.builder(database)
                .instanceName("survivor")
                .handler("mail", new RecordingHandler())
                .settings(DurableTestSupport.fastSettings())
                .build(); // schedules only until the child is dead
        Instant due = Instant.now().plusSeconds(8);
        for (int i = 0; i < TASKS; i++) {
            survivor.tasks().schedule("mail", "k" + i, due.plusMillis(i), null);
        }

        Process child = ChildJvm.builder(
                        DurableTaskChildInstance.class, List.of(), url, "child", Integer.toString(TASKS))
                .start();
        try {
            String line = ChildJvm.readUntil(child, "CLAIMED");
            assertThat(line).as("the child's claims").isEqualTo("CLAIMED " + TASKS);
        } finally {
            // SIGKILL on Linux: no shutdown hook, no release
            assertThat(ChildJvm.kill(child, Duration.ofSeconds(10))).isTrue();
        }
        long killedAt = System.nanoTime();
        assertThat(survivor.tasks().find(DurableTaskQuery.all().state(DurableTaskState.CLAIMED)))
                .hasSize(TASKS)
                .allSatisfy(t -> assertThat(t.claimedBy()).isEqualTo("child"));

        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine rescuer = DurableTaskEngine.builder(database)
                .instanceName("rescuer")
                .handler("mail", handler)
                .settings(DurableTestSupport.fastSettings())
                .build();
        rescuer.start();
        try {
            await().atMost(TestDelays.LONG).until(() -> rescuer.rescuedCount() == TASKS);
            Duration rescuedWithin = Duration.ofNanos(System.nanoTime() - killedAt);
            DurableTaskSettings settings = DurableTestSupport.fastSettings();
            assertThat(rescuedWithin)
                    .isLessThan(settings.lease().plus(settings.pollInterval()).plusSeconds(1));
            await().atMost(TestDelays.LONG).until(() -> handler.totalRuns() == TASKS);
            assertThat(handler.runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
            System.out.println("SIGKILL: " + TASKS + " claims rescued within " + rescuedWithin.toMillis() + " ms");
        } finally {
            rescuer.stop(Duration.ofSeconds(5));
        }
    }
}
