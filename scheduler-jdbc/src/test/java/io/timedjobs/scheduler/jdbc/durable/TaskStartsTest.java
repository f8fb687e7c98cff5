package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Tasks due together start as a group: their fenced starts in one commit (one statement on
 * PostgreSQL, the rows locked and then started by id on H2 and MariaDB); a task of the group changed
 * behind the engine's back since its claim is refused there and never runs, the others run once.
 */
class TaskStartsTest {

    private static final Duration WAIT = TestDelays.LONG;

    /** Lookahead 10 s (the tasks wait in the queue), poll 50 ms, lease 5 s, pool 2: groups of up to 16. */
    private static final DurableTaskSettings SETTINGS = new DurableTaskSettings(
            Duration.ofSeconds(10),
            Duration.ofMillis(50),
            Duration.ofSeconds(5),
            3,
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            200,
            2);

    private final List<DurableTaskEngine> engines = new ArrayList<>();

    @AfterEach
    void stop() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabases.Kind.class,
            names = {"POSTGRESQL", "H2", "MARIADB"})
    void shouldStartTasksDueTogetherInGroupsAndRefuseOneChangedSinceItsClaim(TestDatabases.Kind kind) {
        StatementLog log = new StatementLog(kind.newDatabase());
        ClusterDatabase database = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        DurableTestSupport.database(log.dataSource());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName("grouped")
                .handler("mail", handler)
                .settings(SETTINGS)
                .build();
        engines.add(engine);
        engine.start();
        int count = 48;
        Instant due = Instant.now().plusSeconds(3);
        for (int i = 0; i < count; i++) {
            engine.tasks().schedule("mail", "k" + i, due, null);
        }
        await().atMost(WAIT).until(() -> engine.queuedCount() == count);
        // behind the engine's back: the row of k7 is replaced (a new version), so its claim is void
        DurableTaskStore other = DurableTaskStore.forEngine(database);
        other.upsert("mail", "k7", "changed", null, due.plusSeconds(3600));
        log.clear();

        await().atMost(WAIT).until(() -> handler.totalRuns() == count - 1);

        assertThat(handler.runsOf("k7")).isZero();
        assertThat(engine.fencedCount()).isEqualTo(1);
        for (int i = 0; i < count; i++) {
            assertThat(handler.runsOf("k" + i)).as("k%d", i).isEqualTo(i == 7 ? 0 : 1);
        }
        List<String> starts = log.containing("SET state = 'RUNNING'");
        assertThat(starts.size())
                .as("start statements for %d tasks due together", count)
                .isLessThanOrEqualTo(count / 4);
        await().atMost(WAIT).until(() -> other.countWaiting() == 1); // k7, rescheduled an hour on
    }
}
