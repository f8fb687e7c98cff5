package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several instances (engines in one JVM) on one embedded PostgreSQL: exactly once under load, an
 * outage of the database, and recurring tasks changed while they run.
 */
class DurableTaskClusterTest {

    private final List<DurableTaskEngine> engines = new ArrayList<>();
    private final List<HikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
        pools.forEach(HikariDataSource::close);
    }

    private DataSource newPostgres() {
        HikariDataSource pool = DurableTestSupport.newPostgres(24);
        pools.add(pool);
        return pool;
    }

    private DurableTaskEngine start(
            ClusterDatabase database, String name, DurableTaskHandler<?> handler, DurableTaskSettings settings) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName(name)
                .handler("mail", handler)
                .settings(settings)
                .build();
        engines.add(engine);
        engine.start();
        return engine;
    }

    /** 10,000 tasks over 4 instances: each runs exactly once, and every row is completed. */
    @Test
    void shouldRunTenThousandTasksOverFourInstancesExactlyOnce() {
        ClusterDatabase database = DurableTestSupport.database(newPostgres());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<RecordingHandler> handlers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            RecordingHandler handler = new RecordingHandler(runs);
            handlers.add(handler);
            start(database, "instance-" + i, handler, DurableTestSupport.fastSettings());
        }
        int count = 10_000;
        Instant base = Instant.now().plusSeconds(2);
        new TransactionTemplate(new DataSourceTransactionManager(database.dataSource())).executeWithoutResult(s -> {
            for (int i = 0; i < count; i++) {
                engines.get(i % 4).tasks().schedule("mail", "task-" + i, base.plusMillis(i % 3000), null);
            }
        });

        await().atMost(TestDelays.scaled(Duration.ofMinutes(2))).until(() -> runs.size() == count);
        await().atMost(TestDelays.scaled(Duration.ofSeconds(30)))
                .until(() -> engines.get(0)
                        .tasks()
                        .find(DurableTaskQuery.all().limit(1))
                        .isEmpty());
        assertThat(runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        long completed =
                engines.stream().mapToLong(DurableTaskEngine::completedCount).sum();
        assertThat(completed).isEqualTo(count);
        List<Long> lateness = new ArrayList<>();
        handlers.forEach(h -> lateness.addAll(h.latenessMicros));
        lateness.sort(null);
        System.out.println("10k tasks over 4 instances: completed per instance "
                + engines.stream().map(e -> Long.toString(e.completedCount())).toList()
                + ", lateness in microseconds p50 " + lateness.get(count / 2) + ", p99 "
                + lateness.get(count * 99 / 100) + ", max " + lateness.get(count - 1));
    }

    /**
     * Tasks spread over 3 s start at their due instant, never before it (within the measured clock
     * offset's error, here a few milliseconds at most); the lateness figures are printed, not judged.
     */
    @Test
    void shouldStartSpreadTasksAtTheirDueInstantNeverBefore() {
        ClusterDatabase database = DurableTestSupport.database(newPostgres());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = start(database, "a", handler, DurableTestSupport.fastSettings());
        int count = 300;
        Instant base = Instant.now().plusSeconds(1);
        for (int i = 0; i < count; i++) {
            engine.tasks().schedule("mail", "spread-" + i, base.plusMillis(i * 10L), null);
        }

        await().atMost(TestDelays.scaled(Duration.ofSeconds(30))).until(() -> handler.totalRuns() == count);
        List<Long> lateness = new ArrayList<>(handler.latenessMicros);
        lateness.sort(null);
        assertThat(lateness.get(0))
                .as("earliest start, in microseconds after due")
                .isGreaterThan(-5_000L);
        System.out.println("spread: " + count + " tasks over 3 s on one instance, lateness in microseconds p50 "
                + lateness.get(count / 2) + ", p99 " + lateness.get(count * 99 / 100) + ", max "
                + lateness.get(count - 1) + ", min " + lateness.get(0));
    }

    /**
     * The database stopped for 5 s: claimed tasks still fire, scheduling fails clearly, and once it is
     * back every task has run once and every outcome is written.
     */
    @Test
    void shouldLoseNothingWhenTheDatabaseStopsForFiveSeconds() {
        SwitchableDataSource dataSource = new SwitchableDataSource(newPostgres());
        ClusterDatabase database = DurableTestSupport.database(dataSource);
        DurableTaskSettings settings = new DurableTaskSettings(
                Duration.ofSeconds(5),
                Duration.ofMillis(50),
                Duration.ofSeconds(20),
                3,
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                200,
                4);
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = start(database, "a", handler, settings);
        Instant now = Instant.now();
        for (int i = 0; i < 10; i++) {
            engine.tasks().schedule("mail", "during-" + i, now.plusMillis(2500 + 100 * i), null);
        }
        for (int i = 0; i < 5; i++) {
            engine.tasks().schedule("mail", "after-" + i, now.plusMillis(9000 + 100 * i), null);
        }
        await().atMost(TestDelays.LONG).until(() -> engine.queuedCount() + handler.totalRuns() == 10);

        dataSource.down();
        long downAt = System.nanoTime();
        assertThatThrownBy(() -> engine.tasks().schedule("mail", "refused", Duration.ZERO, null))
                .isInstanceOf(DurableTaskException.class)
                .hasMessageContaining("Could not schedule durable task mail/refused");
        await().atMost(TestDelays.LONG)
                .until(() -> handler.totalRuns() == 10 && System.nanoTime() - downAt >= 5_000_000_000L);
        dataSource.up();

        await().atMost(TestDelays.LONG).until(() -> handler.totalRuns() == 15);
        await().atMost(TestDelays.LONG)
                .until(() -> engine.tasks().find(DurableTaskQuery.all()).isEmpty());
        assertThat(handler.runs.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(engine.outageCount()).as("outages logged").isEqualTo(1);
        assertThat(engine.databaseFailureCount()).isGreaterThan(1);
    }

    /**
     * Recurring tasks added, changed and removed while two instances run: each fire runs once, the
     * change takes effect, and nothing fires after the removal.
     */
    @Test
    void shouldAddChangeAndRemoveRecurringTasksAcrossInstances() {
        ClusterDatabase database = DurableTestSupport.database(newPostgres());
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        RecordingHandler a = new RecordingHandler(runs);
        RecordingHandler b = new RecordingHandler(runs);
        DurableTaskEngine engineA = start(database, "a", a, DurableTestSupport.fastSettings());
        start(database, "b", b, DurableTestSupport.fastSettings());

        engineA.tasks().scheduleRecurring("mail", "tick", DurableSchedule.every(Duration.ofMillis(200)), "v1");
        await().atMost(TestDelays.LONG)
                .until(() -> runs.containsKey("tick") && runs.get("tick").get() >= 3);

        engineA.tasks().scheduleRecurring("mail", "tick", DurableSchedule.every(Duration.ofMillis(100)), "v2");
        await().atMost(TestDelays.LONG)
                .until(() -> payloads(a, b).stream().filter("v2"::equals).count() >= 3);

        assertThat(engineA.tasks().cancel("mail", "tick")).isTrue();
        Instant removedAt = Instant.now();
        engineA.tasks().schedule("mail", "marker", Duration.ofMillis(800), null);
        await().atMost(TestDelays.LONG).until(() -> runs.containsKey("marker"));

        List<DurableTask<String>> ticks = new ArrayList<>();
        ticks.addAll(a.tasks);
        ticks.addAll(b.tasks);
        ticks.removeIf(t -> !t.key().equals("tick"));
        Set<String> fires = new HashSet<>();
        assertThat(ticks)
                .allSatisfy(t -> assertThat(fires.add(t.idempotencyKey()))
                        .as("fire %s ran once", t.idempotencyKey())
                        .isTrue());
        assertThat(ticks).allSatisfy(t -> assertThat(t.recurring()).isTrue());
        assertThat(ticks)
                .filteredOn(t -> t.fireAt().isAfter(removedAt.plusMillis(150)))
                .isEmpty();
    }

    private static List<String> payloads(RecordingHandler... handlers) {
        List<String> payloads = new ArrayList<>();
        for (RecordingHandler handler : handlers) {
            handler.tasks.forEach(t -> payloads.add(t.payload()));
        }
        return payloads;
    }
}
