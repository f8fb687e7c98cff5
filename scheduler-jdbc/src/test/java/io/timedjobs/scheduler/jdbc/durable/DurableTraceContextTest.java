package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The trace context of a scheduling call travels with the task to its run: stored when the
 * schedule observer gives one, handed to the execution observer at every attempt, dropped when it
 * is not a W3C {@code traceparent}, and cleared after a recurring task's first fire.
 */
class DurableTraceContextTest {

    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private final List<DurableTaskEngine> engines = new ArrayList<>();

    /** Trace context seen by the execution observer, per task key, one entry per attempt. */
    private final Map<String, List<@Nullable String>> seen = new ConcurrentHashMap<>();

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
    }

    /** A String handler that runs {@code body}. */
    private static DurableTaskHandler<String> handler(ThrowingConsumer body) {
        return new DurableTaskHandler<>() {
            @Override
            public Class<String> payloadType() {
                return String.class;
            }

            @Override
            public void handle(DurableTask<String> task) throws Exception {
                body.accept(task);
            }
        };
    }

    @FunctionalInterface
    private interface ThrowingConsumer {
        void accept(DurableTask<String> task) throws Exception;
    }

    private DurableTaskEngine start(ClusterDatabase database, @Nullable String given, ThrowingConsumer body) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName("a")
                .handler("mail", handler(body))
                .settings(DurableTestSupport.fastSettings())
                .scheduleObserver((name, key, write) -> write.run(given))
                .observer(new DurableExecutionObserver() {
                    @Override
                    public void observe(DurableTask<?> task, Execution execution) {
                        throw new AssertionError("the engine hands over the trace context");
                    }

                    @Override
                    public void observe(DurableTask<?> task, @Nullable String traceParent, Execution execution)
                            throws Exception {
                        seen.computeIfAbsent(task.key(), key -> new CopyOnWriteArrayList<>())
                                .add(traceParent);
                        execution.run();
                    }
                })
                .build();
        engines.add(engine);
        engine.start();
        return engine;
    }

    /** The stored context reaches every attempt of the task, the failed one and its retry. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldHandTheSchedulingContextToEveryAttempt(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        AtomicInteger calls = new AtomicInteger();
        DurableTaskEngine engine = start(database, PARENT, task -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        });

        engine.tasks().schedule("mail", "k", Duration.ZERO, "x");

        await().atMost(TestDelays.LONG)
                .until(() -> seen.getOrDefault("k", List.of()).size() == 2);
        assertThat(seen.get("k")).containsExactly(PARENT, PARENT);
    }

    /** A value that is not a version 00 traceparent is not stored; the run sees none. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldDropAValueThatIsNotATraceparent(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTaskEngine engine = start(database, "b3=4bf92f3577b34da6-00f067aa0ba902b7-1", task -> {});

        engine.tasks().schedule("mail", "k", Duration.ZERO, null);

        await().atMost(TestDelays.LONG).until(() -> seen.containsKey("k"));
        assertThat(seen.get("k")).containsOnlyNulls();
    }

    /** Without a schedule observer nothing is written to the column. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteNoContextWithoutAnObserver(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName("a")
                .handler("mail", handler(task -> {}))
                .settings(DurableTestSupport.fastSettings())
                .build();
        engines.add(engine);

        engine.tasks().schedule("mail", "k", Duration.ofHours(1), null);

        assertThat(new JdbcTemplate(database.dataSource())
                        .queryForList("SELECT trace_parent FROM timed_jobs_tasks", String.class))
                .containsExactly((String) null);
    }

    /**
     * A recurring task's first fire continues the scheduling call's trace; later fires start their
     * own, so that a schedule that runs for months does not grow one trace without end.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldContinueTheTraceOnlyAtTheFirstFireOfARecurringTask(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTaskEngine engine = start(database, PARENT, task -> {});

        engine.tasks().scheduleRecurring("mail", "every", DurableSchedule.every(Duration.ofMillis(200)), null);

        await().atMost(TestDelays.LONG)
                .until(() -> seen.getOrDefault("every", List.of()).size() >= 2);
        List<@Nullable String> fires = seen.get("every");
        assertThat(fires.get(0)).isEqualTo(PARENT);
        assertThat(fires.subList(1, fires.size())).containsOnlyNulls();
    }

    /** The check of the stored format. */
    @Test
    void shouldAcceptOnlyVersion00TraceparentValues() {
        assertThat(TraceParent.orNull(PARENT)).isEqualTo(PARENT);
        assertThat(TraceParent.orNull(null)).isNull();
        assertThat(TraceParent.orNull(PARENT.toUpperCase(java.util.Locale.ROOT)))
                .isNull();
        assertThat(TraceParent.orNull("01" + PARENT.substring(2))).isNull();
        assertThat(TraceParent.orNull(PARENT + "-extra")).isNull();
        assertThat(TraceParent.orNull(PARENT.replace('-', '_'))).isNull();
        assertThat(TraceParent.orNull("00-00000000000000000000000000000000-00f067aa0ba902b7-01"))
                .isNull();
        assertThat(TraceParent.orNull("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"))
                .isNull();
    }
}
