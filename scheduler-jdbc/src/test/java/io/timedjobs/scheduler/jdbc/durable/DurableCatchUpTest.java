package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Recurring durable tasks after a downtime of every instance: each catch-up policy, with three
 * instances starting together, each nominal fire run at most once.
 */
class DurableCatchUpTest {

    private static final Duration PERIOD = Duration.ofSeconds(10);

    /** How long every instance was down: the rows' fires are moved back by as much. */
    private static final Duration DOWNTIME = Duration.ofSeconds(65);

    private final List<DurableTaskEngine> engines = new ArrayList<>();

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
    }

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCatchUpEachPolicyOnceWithThreeInstancesStartingTogether(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = DurableTestSupport.database(dataSource);
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        List<RecordingHandler> handlers =
                List.of(new RecordingHandler(runs), new RecordingHandler(runs), new RecordingHandler(runs));
        for (int i = 0; i < 3; i++) {
            engine(database, "instance-" + i, handlers.get(i));
        }
        DurableTasks tasks = engines.get(0).tasks();
        DurableSchedule every = DurableSchedule.every(PERIOD);
        tasks.scheduleRecurring("mail", "none", every, null);
        tasks.scheduleRecurring("mail", "skip", every.catchUp(policy(Policy.SKIP, Duration.ofDays(1), 24)), null);
        tasks.scheduleRecurring("mail", "once", every.catchUp(policy(Policy.ONCE, Duration.ofDays(1), 24)), null);
        tasks.scheduleRecurring("mail", "each", every.catchUp(policy(Policy.EACH, Duration.ofDays(1), 3)), null);
        tasks.scheduleRecurring(
                "mail", "window", every.catchUp(policy(Policy.EACH, Duration.ofSeconds(25), 100)), null);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // The rows as a downtime leaves them: each waits for a fire long past.
        jdbc.update(
                "UPDATE timed_jobs_tasks SET fire_at = ?, due_at = ?",
                database.dialect().bind(Instant.now().minus(DOWNTIME)),
                database.dialect().bind(Instant.now().minus(DOWNTIME)));
        Map<String, Instant> stored = new ConcurrentHashMap<>();
        jdbc.query("SELECT task_key, fire_at FROM timed_jobs_tasks", rs -> {
            stored.put(rs.getString("task_key"), database.dialect().readInstant(rs, "fire_at"));
        });

        Instant restart = Instant.now();
        List<CompletableFuture<Void>> starting = new ArrayList<>();
        for (DurableTaskEngine engine : engines) {
            starting.add(CompletableFuture.runAsync(engine::start));
        }
        CompletableFuture.allOf(starting.toArray(CompletableFuture[]::new)).get();
        // Caught up once every row waits for a fire after the restart.
        await().atMost(TestDelays.scaled(Duration.ofSeconds(30)))
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM timed_jobs_tasks WHERE fire_at > ? AND state = 'PENDING'",
                                Integer.class,
                                database.dialect().bind(restart))
                        == 5);
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
        engines.clear();

        Map<String, List<Instant>> fires = new ConcurrentHashMap<>();
        for (RecordingHandler handler : handlers) {
            handler.tasks.stream()
                    .filter(task -> task.fireAt().isBefore(restart)) // the fires of the downtime
                    .forEach(task -> fires.computeIfAbsent(task.key(), key -> new ArrayList<>())
                            .add(task.fireAt()));
        }
        fires.values().forEach(list -> list.sort(null));
        for (List<Instant> list : fires.values()) {
            assertThat(list).as("each fire runs once").doesNotHaveDuplicates();
        }
        assertThat(fires.get("none"))
                .as("no policy: the fire it waited for runs once, late")
                .containsExactly(stored.get("none"));
        assertThat(fires.getOrDefault("skip", List.of())).as("skip").isEmpty();
        List<Instant> once = fires.get("once");
        assertThat(once).as("once: the latest missed fire").hasSize(1);
        assertThat(once.get(0)).isAfter(restart.minus(PERIOD).minusSeconds(1));
        List<Instant> each = fires.get("each");
        assertThat(each).as("each: the three latest missed fires, oldest first").hasSize(3);
        assertThat(Duration.between(each.get(0), each.get(2))).isEqualTo(PERIOD.multipliedBy(2));
        assertThat(each.get(2)).isAfter(restart.minus(PERIOD).minusSeconds(1));
        List<Instant> window = fires.get("window");
        assertThat(window).as("each within 25 s: not the whole downtime").hasSizeBetween(2, 3);
        assertThat(window).allMatch(fire -> fire.isAfter(restart.minusSeconds(26)));
    }

    @Test
    void shouldReadBackACatchUpFromItsStoredForm() {
        DurableSchedule schedule = DurableSchedule.every(PERIOD).catchUp(policy(Policy.EACH, Duration.ofHours(6), 24));
        assertThat(schedule.toString()).isEqualTo("every:PT10S|catch-up:each,PT6H,24");
        assertThat(DurableSchedule.parse(schedule.toString())).isEqualTo(schedule);
        assertThat(DurableSchedule.parse(schedule.toString()).catchUpPolicy())
                .isEqualTo(policy(Policy.EACH, Duration.ofHours(6), 24));
        assertThat(DurableSchedule.every(PERIOD).catchUpPolicy()).isNull();
        assertThatThrownBy(() -> DurableSchedule.parse("every:PT10S|catch-up:sometimes,PT6H,24"))
                .hasMessageContaining("'sometimes'");
        assertThatThrownBy(() -> DurableSchedule.parse("every:PT10S|catch-up:each,-PT6H,24"))
                .hasMessageContaining("window must be positive");
    }

    private static CatchUpPolicy policy(Policy mode, Duration window, int maxFires) {
        return new CatchUpPolicy(mode, window, maxFires);
    }

    private DurableTaskEngine engine(ClusterDatabase database, String name, RecordingHandler handler) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName(name)
                .handler("mail", handler)
                .settings(DurableTestSupport.fastSettings())
                .build();
        engines.add(engine);
        return engine;
    }
}
