package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A completion that waits to be written (in its group, or for the next poll) when its instance dies
 * is not lost and not silently dropped: the task runs again elsewhere once the lease ends, at least
 * once as the guides state.
 */
class CompletionCrashTest {

    private static final Duration WAIT = TestDelays.LONG;

    private final List<DurableTaskEngine> engines = new ArrayList<>();

    @AfterEach
    void stop() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
    }

    @Test
    void shouldRunATaskAgainElsewhereWhenItsInstanceDiesBeforeItsCompletionIsWritten() {
        DataSource shared = TestDatabases.newH2();
        SwitchableDataSource instanceA = new SwitchableDataSource(shared);
        ClusterDatabase databaseA = DurableTestSupport.database(instanceA);
        AtomicInteger runsOnA = new AtomicInteger();
        DurableTaskEngine a = DurableTaskEngine.builder(databaseA)
                .instanceName("a")
                .handler("mail", new DurableTaskHandler<String>() {
                    @Override
                    public Class<String> payloadType() {
                        return String.class;
                    }

                    @Override
                    public void handle(DurableTask<String> task) {
                        runsOnA.incrementAndGet();
                        instanceA.down(); // the handler's work is done; its completion cannot be written
                    }
                })
                .settings(DurableTestSupport.fastSettings())
                .build();
        engines.add(a);
        a.start();
        a.tasks().schedule("mail", "k", Duration.ZERO, null);
        await().atMost(WAIT).until(() -> runsOnA.get() == 1 && a.completedCount() == 1);

        a.abandon(); // dies with the completion unwritten
        RecordingHandler onB = new RecordingHandler();
        DurableTaskEngine b = DurableTaskEngine.builder(ClusterDatabase.of(shared, TableNames.defaults()))
                .instanceName("b")
                .handler("mail", onB)
                .settings(DurableTestSupport.fastSettings())
                .build();
        engines.add(b);
        b.start();

        await().atMost(WAIT).until(() -> onB.runsOf("k") == 1);
        assertThat(b.rescuedCount()).isEqualTo(1);
        DurableTaskStore store = DurableTestSupport.store(shared);
        await().atMost(WAIT).until(() -> store.countWaiting() == 0);
        assertThat(runsOnA.get() + onB.runsOf("k"))
                .as("at least once: here twice")
                .isEqualTo(2);
    }

    /**
     * A completion waiting for company (the linger) when its instance dies is never written: the task
     * runs again elsewhere once the lease ends. A stop, by contrast, writes it before returning.
     */
    @Test
    void shouldRunATaskAgainElsewhereWhenItsInstanceDiesWhileItsCompletionLingers() {
        DataSource shared = TestDatabases.newH2();
        RecordingHandler onA = new RecordingHandler();
        DurableTaskEngine a = DurableTaskEngine.builder(DurableTestSupport.database(shared))
                .instanceName("a")
                .handler("mail", onA)
                .settings(DurableTestSupport.fastSettings())
                .completionLinger(Duration.ofHours(1)) // the completion waits until the crash
                .build();
        engines.add(a);
        a.start();
        a.tasks().schedule("mail", "k", Duration.ZERO, null);
        await().atMost(WAIT).until(() -> a.completedCount() == 1);
        DurableTaskStore store = DurableTestSupport.store(shared);
        assertThat(store.countWaiting()).as("the completion lingers, unwritten").isEqualTo(1);

        a.abandon();
        RecordingHandler onB = new RecordingHandler();
        DurableTaskEngine b = DurableTaskEngine.builder(ClusterDatabase.of(shared, TableNames.defaults()))
                .instanceName("b")
                .handler("mail", onB)
                .settings(DurableTestSupport.fastSettings())
                .build();
        engines.add(b);
        b.start();

        await().atMost(WAIT).until(() -> onB.runsOf("k") == 1);
        await().atMost(WAIT).until(() -> store.countWaiting() == 0);
        assertThat(onA.runsOf("k") + onB.runsOf("k"))
                .as("at least once: here twice")
                .isEqualTo(2);
    }

    @Test
    void shouldWriteALingeringCompletionAtStop() {
        DataSource shared = TestDatabases.newH2();
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine a = DurableTaskEngine.builder(DurableTestSupport.database(shared))
                .instanceName("a")
                .handler("mail", handler)
                .settings(DurableTestSupport.fastSettings())
                .completionLinger(Duration.ofHours(1))
                .build();
        a.start();
        a.tasks().schedule("mail", "k", Duration.ZERO, null);
        await().atMost(WAIT).until(() -> a.completedCount() == 1);
        DurableTaskStore store = DurableTestSupport.store(shared);
        assertThat(store.countWaiting()).isEqualTo(1);

        a.stop(Duration.ofSeconds(5));

        assertThat(store.countWaiting()).as("written by the stop").isZero();
        assertThat(handler.runsOf("k")).isEqualTo(1);
    }

    @Test
    void shouldRefuseANegativeLinger() {
        DurableTaskEngineBuilder builder =
                DurableTaskEngine.builder(DurableTestSupport.database(TestDatabases.newH2()));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> builder.completionLinger(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("completionLinger");
    }
}
