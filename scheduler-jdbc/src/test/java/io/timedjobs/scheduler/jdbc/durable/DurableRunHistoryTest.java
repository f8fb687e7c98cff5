package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The run history of durable tasks: each execution's record, written with its completion or failure. */
class DurableRunHistoryTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(20));

    private final List<DurableTaskEngine> engines = new ArrayList<>();

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
    }

    private DurableTaskEngine start(ClusterDatabase database, RunHistory history, DurableTaskHandler<?> handler) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName("a")
                .handler("mail", handler)
                .handler("ledger", new Transactional())
                .settings(DurableTestSupport.fastSettings())
                .transactionManager(new DataSourceTransactionManager(database.dataSource()))
                .history(history)
                .build();
        engines.add(engine);
        engine.start();
        return engine;
    }

    /**
     * A group of completions in one transaction: the task cancelled while it ran is refused, the two
     * others are accepted, and only those two get a record. PostgreSQL and H2 (MariaDB writes each
     * completion alone).
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabases.Kind.class,
            names = {"POSTGRESQL", "H2"})
    void shouldRecordOnlyTheAcceptedCompletionsOfAGroup(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        DurableTaskStore store = DurableTaskStore.forEngine(database);
        List<ClaimedTask> tasks = new ArrayList<>();
        List<FinishedRun> runs = new ArrayList<>();
        for (String key : List.of("a", "b", "c")) {
            store.upsert("mail", key, null, null, java.time.Instant.now());
        }
        for (ClaimedTask task :
                store.claimDue("me", Duration.ofSeconds(5), Duration.ofSeconds(30), List.of("mail"), 10)) {
            assertThat(store.start(task, "me", Duration.ofSeconds(30))).isTrue();
            tasks.add(task);
            runs.add(new FinishedRun(
                    RunKind.TASK, "mail", task.key(), task.fireAt(), "me", 1, RunOutcome.SUCCEEDED, 1, null));
        }
        tasks.sort(Comparator.comparing(ClaimedTask::key));
        runs.sort(Comparator.comparing(FinishedRun::taskKey));
        assertThat(store.cancel("mail", "b")).isTrue();

        int[] counts = history.completeAll(() -> store.completeOnceAll(tasks), runs);

        assertThat(counts).containsExactly(1, 0, 1);
        assertThat(history.find(RunHistoryQuery.all().task("mail")))
                .extracting(RunRecord::taskKey)
                .containsExactlyInAnyOrder("a", "c");
        assertThat(store.countWaiting()).isZero();
    }

    /**
     * A success; a failure retried, then a success; a failure on every attempt (three): one record
     * per attempt, in order, the failures with their error, the last FAILED; and a handler that runs
     * inside its completion's transaction is recorded in it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordEachExecutionWithItsOutcome(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        DurableTaskEngine engine = start(database, history, new Failing());

        engine.tasks().schedule("mail", "ok", Duration.ZERO, null);
        engine.tasks().schedule("mail", "flaky", Duration.ZERO, null);
        engine.tasks().schedule("mail", "broken", Duration.ZERO, null);
        engine.tasks().schedule("ledger", "entry", Duration.ZERO, null);

        await().atMost(WAIT)
                .until(() -> history.find(RunHistoryQuery.all().task("mail")).size() == 6
                        && history.find(RunHistoryQuery.all().task("ledger")).size() == 1);
        assertThat(attempts(history, "ok")).extracting(RunRecord::outcome).containsExactly(RunOutcome.SUCCEEDED);
        assertThat(attempts(history, "flaky"))
                .extracting(RunRecord::outcome)
                .containsExactly(RunOutcome.RETRIED, RunOutcome.SUCCEEDED);
        List<RunRecord> broken = attempts(history, "broken");
        assertThat(broken)
                .extracting(RunRecord::outcome)
                .containsExactly(RunOutcome.RETRIED, RunOutcome.RETRIED, RunOutcome.FAILED);
        assertThat(broken).extracting(RunRecord::attempt).containsExactly(1, 2, 3);
        assertThat(broken).allSatisfy(run -> {
            assertThat(run.error()).isEqualTo("java.lang.IllegalStateException: broken, attempt " + run.attempt());
            assertThat(run.kind()).isEqualTo(RunKind.TASK);
            assertThat(run.instance()).isEqualTo("a");
        });
        assertThat(history.find(RunHistoryQuery.all().task("ledger")))
                .singleElement()
                .satisfies(run -> assertThat(run.outcome()).isEqualTo(RunOutcome.SUCCEEDED));
        assertThat(history.find(RunHistoryQuery.all().task("mail").outcome(RunOutcome.FAILED)))
                .extracting(RunRecord::taskKey)
                .containsExactly("broken");
    }

    /** Off: tasks run and complete as ever, and nothing is recorded. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordNothingWhenOff(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RunHistory history = RunHistory.disabled(database);
        Failing handler = new Failing();
        DurableTaskEngine engine = start(database, history, handler);

        engine.tasks().schedule("mail", "ok", Duration.ZERO, null);
        engine.tasks().schedule("mail", "flaky", Duration.ZERO, null);

        await().atMost(WAIT).until(() -> engine.completedCount() == 2);
        assertThat(new RunHistory(database, RunHistorySettings.defaults()).find(RunHistoryQuery.all()))
                .isEmpty();
    }

    private static List<RunRecord> attempts(RunHistory history, String key) {
        return history.find(RunHistoryQuery.all().task("mail")).stream()
                .filter(run -> key.equals(run.taskKey()))
                .sorted(Comparator.comparingLong(RunRecord::id))
                .toList();
    }

    /** Keys "flaky" fail their first attempt, "broken" every one; the rest succeed. */
    static final class Failing implements DurableTaskHandler<String> {
        private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            int attempt = attempts.computeIfAbsent(task.key(), k -> new AtomicInteger())
                    .incrementAndGet();
            if (task.key().equals("broken") || (task.key().equals("flaky") && attempt == 1)) {
                throw new IllegalStateException(task.key() + ", attempt " + attempt);
            }
        }
    }

    /** Runs inside its completion's transaction. */
    static final class Transactional implements DurableTaskHandler<String> {
        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {}

        @Override
        public boolean runsInCompletionTransaction() {
            return true;
        }
    }
}
