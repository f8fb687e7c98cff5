package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A process that died holding claims, restarted under the same name: the claims it left are handed
 * back as it registers, not renewed as the new process's own, and run.
 */
class DurableTaskRestartTest {

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRunTheClaimsAProcessLeftUnderItsNameWhenItRestarts(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTaskSettings settings = DurableTestSupport.fastSettings();
        // The process that died: its row beats no more, its claims (one started) stay behind.
        new ClusterInstance(database.jdbc(), database.dialect(), database.tables(), "web-1", settings.lease())
                .register();
        DurableTasks scheduling = DurableTaskEngine.builder(database)
                .handler("mail", new RecordingHandler())
                .build()
                .tasks();
        Instant due = Instant.now();
        for (int i = 0; i < 3; i++) {
            scheduling.schedule("mail", "k" + i, due, "p" + i);
        }
        DurableTaskStore store = new DurableTaskStore(database);
        List<ClaimedTask> left = store.claimDue("web-1", Duration.ZERO, settings.lease(), Set.of("mail"), 10);
        assertThat(left).hasSize(3);
        assertThat(store.start(left.get(0), "web-1", settings.lease())).isTrue();

        RecordingHandler handler = new RecordingHandler();
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        ClusterInstance restarted = new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                "web-1",
                settings.lease(),
                settings.pollInterval(),
                wait -> {}); // nobody beats meanwhile: the holder is gone
        ClusterHeartbeat heartbeat = new ClusterHeartbeat(
                restarted, clock, new OutageLog(ClusterHeartbeat.class, "test"), settings.pollInterval());
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .handler("mail", handler)
                .settings(settings)
                .heartbeat(heartbeat, clock)
                .build();
        engine.start();
        heartbeat.start();
        try {
            await().atMost(TestDelays.LONG).until(() -> handler.totalRuns() == 3);
            assertThat(handler.runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
            assertThat(handler.tasks)
                    .filteredOn(task -> task.key().equals(left.get(0).key()))
                    .singleElement()
                    .satisfies(task -> assertThat(task.attempt())
                            .as("the attempt the dead process began counts")
                            .isEqualTo(2));
            await().atMost(TestDelays.LONG)
                    .until(() -> engine.tasks().find(DurableTaskQuery.all()).isEmpty());
        } finally {
            engine.stop(Duration.ofSeconds(5));
            heartbeat.stop();
        }
    }
}
