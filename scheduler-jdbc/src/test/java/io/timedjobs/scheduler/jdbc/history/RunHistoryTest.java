package io.timedjobs.scheduler.jdbc.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/** The run history's table on each database: written, found by each filter, pruned, and free of extra commits. */
class RunHistoryTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T10:00:00Z");

    private static ClusterDatabase database(DataSource dataSource) {
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        return database;
    }

    private static FinishedRun job(String name, String instance, RunOutcome outcome, long millis) {
        return new FinishedRun(
                RunKind.JOB,
                name,
                null,
                FIRE,
                instance,
                millis,
                outcome,
                1,
                outcome.failed() ? "java.lang.IllegalStateException: boom" : null);
    }

    private static void write(RunHistory history, FinishedRun run) {
        history.complete(() -> true, run, true);
    }

    /** Each filter of the query, alone and together, and the limit; latest start first. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldFindRecordsByEachFilter(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        write(history, job("report", "a", RunOutcome.SUCCEEDED, 3_600_000)); // started an hour ago
        write(history, job("report", "b", RunOutcome.FAILED, 5));
        write(history, job("cleanup", "a", RunOutcome.SUCCEEDED, 7));
        write(history, new FinishedRun(RunKind.TASK, "report", "k1", FIRE, "b", 9, RunOutcome.RETRIED, 1, "x: y"));

        List<RunRecord> reports = history.find(RunHistoryQuery.all().job("report"));
        assertThat(reports).extracting(RunRecord::instance).containsExactly("b", "a");
        assertThat(reports.get(1).duration()).isEqualTo(Duration.ofHours(1));
        assertThat(reports.get(0).fireAt()).isEqualTo(FIRE);
        assertThat(reports.get(0).error()).isEqualTo("java.lang.IllegalStateException: boom");
        assertThat(history.find(RunHistoryQuery.all().task("report")))
                .singleElement()
                .satisfies(run -> {
                    assertThat(run.kind()).isEqualTo(RunKind.TASK);
                    assertThat(run.taskKey()).isEqualTo("k1");
                    assertThat(run.outcome()).isEqualTo(RunOutcome.RETRIED);
                });
        assertThat(history.find(RunHistoryQuery.all().instance("a")))
                .extracting(RunRecord::name)
                .containsExactlyInAnyOrder("report", "cleanup");
        assertThat(history.find(RunHistoryQuery.all().outcome(RunOutcome.FAILED)))
                .extracting(RunRecord::instance)
                .containsExactly("b");
        assertThat(history.find(RunHistoryQuery.all().failures())).hasSize(2);
        Instant halfAnHourAgo = history.find(RunHistoryQuery.all().job("cleanup"))
                .get(0)
                .startedAt()
                .minus(Duration.ofMinutes(30));
        assertThat(history.find(RunHistoryQuery.all().to(halfAnHourAgo)))
                .extracting(RunRecord::instance)
                .containsExactly("a");
        assertThat(history.find(RunHistoryQuery.all().from(halfAnHourAgo))).hasSize(3);
        assertThat(history.find(
                        RunHistoryQuery.all().job("report").instance("b").failures()))
                .hasSize(1);
        assertThat(history.find(RunHistoryQuery.all().limit(2))).hasSize(2);
        assertThat(history.find(RunHistoryQuery.all())).hasSize(4);
    }

    /** An error summary is the cause's class and message, cut to the limit, never half a character. */
    @Test
    void shouldSummarizeErrorsWithinTheLimit() {
        String summary = RunHistory.errorSummary(new java.lang.reflect.UndeclaredThrowableException(
                new java.io.IOException("x".repeat(RunHistory.ERROR_LENGTH))));
        assertThat(summary).startsWith("java.io.IOException: xxx").hasSize(RunHistory.ERROR_LENGTH);
        assertThatThrownBy(() -> new RunHistorySettings(true, Duration.ofDays(-1), 10))
                .hasMessageContaining("retention");
        assertThatThrownBy(() -> new RunHistorySettings(true, Duration.ofDays(1), -1))
                .hasMessageContaining("max-rows");
        assertThatThrownBy(() -> RunHistoryQuery.all().job("a").task("b")).hasMessageContaining("not both");
    }

    /** Beyond the most rows, the oldest go; older than the retention, they go too. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldPruneByCountAndByAge(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory history = new RunHistory(database, new RunHistorySettings(true, Duration.ofMinutes(30), 700));
        for (int i = 0; i < 10; i++) {
            write(history, job("old" + i, "a", RunOutcome.SUCCEEDED, 3_600_000)); // started an hour ago
        }
        for (int i = 0; i < 20; i++) {
            write(history, job("new" + i, "a", RunOutcome.SUCCEEDED, 1));
        }
        assertThat(history.prune()).isEqualTo(10);
        assertThat(history.find(RunHistoryQuery.all().to(Instant.now().minus(Duration.ofMinutes(20)))))
                .isEmpty();
        assertThat(count(database)).isEqualTo(20);

        for (int i = 0; i < 1200; i++) {
            write(history, job("j" + i, "a", RunOutcome.SUCCEEDED, 1));
        }
        assertThat(history.prune()).isEqualTo(520);
        assertThat(count(database)).isEqualTo(700);
        assertThat(history.find(RunHistoryQuery.all().job("j499"))).isEmpty();
        assertThat(history.find(RunHistoryQuery.all().job("j500"))).hasSize(1);
        assertThat(history.prune()).as("nothing left to prune").isZero();
    }

    /**
     * Writers go on while an instance prunes, batch after batch: no statement fails, nothing waits
     * long, and once the writers stop one round brings the table within its most rows.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldPruneWhileRunsAreWritten(TestDatabases.Kind kind) throws Exception {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory history = new RunHistory(database, new RunHistorySettings(true, Duration.ofDays(1), 300));
        ExecutorService pool = Executors.newFixedThreadPool(3);
        AtomicBoolean writing = new AtomicBoolean(true);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                String instance = "w" + w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < 1000; i++) {
                        write(history, job("j", instance, RunOutcome.SUCCEEDED, 1));
                    }
                }));
            }
            Future<Integer> pruner = pool.submit(() -> {
                int deleted = 0;
                while (writing.get()) {
                    deleted += history.prune();
                }
                return deleted;
            });
            for (Future<?> writer : writers) {
                writer.get(2, TimeUnit.MINUTES);
            }
            writing.set(false);
            int deletedWhileWriting = pruner.get(1, TimeUnit.MINUTES);
            history.prune();
            assertThat(count(database)).isEqualTo(300);
            assertThat(deletedWhileWriting).isPositive();
            assertThat(history.find(RunHistoryQuery.all().limit(1)).get(0).id())
                    .as("the newest stay")
                    .isEqualTo(new JdbcTemplate(database.dataSource())
                            .queryForObject("SELECT MAX(id) FROM timed_jobs_run_history", Long.class));
        } finally {
            writing.set(false);
            pool.shutdownNow();
        }
    }

    /** The record joins the completion's transaction: one commit with it, as without it. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldAddNoCommit(TestDatabases.Kind kind) {
        TransactionCounter counter = new TransactionCounter(kind.newDatabase());
        ClusterDatabase database = database(counter);
        String completion = "UPDATE timed_jobs_jobs SET lease_owner = NULL WHERE job_name = 'none'";
        RunHistory off = RunHistory.disabled(database);
        RunHistory on = new RunHistory(database, RunHistorySettings.defaults());

        long before = counter.transactions();
        off.complete(() -> database.jdbc().update(completion) == 0, job("j", "a", RunOutcome.SUCCEEDED, 1), true);
        long withoutHistory = counter.transactions() - before;
        before = counter.transactions();
        on.complete(() -> database.jdbc().update(completion) == 0, job("j", "a", RunOutcome.SUCCEEDED, 1), true);
        long withHistory = counter.transactions() - before;

        assertThat(withoutHistory).isEqualTo(1);
        assertThat(withHistory).isEqualTo(withoutHistory);
        assertThat(count(database)).isEqualTo(1);
    }

    /**
     * A fenced end and its record: the record follows the end's outcome (or is written anyway when
     * {@code always}), with the record's values as written by a transaction; on PostgreSQL the two
     * are one statement, elsewhere the end and the insert share a transaction.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteAFencedEndWithItsRecordInOneStatementWhereTheDatabaseCan(TestDatabases.Kind kind) {
        StatementLog log = new StatementLog(kind.newDatabase());
        ClusterDatabase database = database(log.dataSource());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        String now = database.dialect().now();
        database.jdbc()
                .update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('x', " + now
                        + ", " + now + ")");
        String change = "UPDATE timed_jobs_instances SET heartbeat_at = " + now + " WHERE instance_name = ?";
        FinishedRun failed = new FinishedRun(
                RunKind.TASK, "mail", "k1", FIRE, "a", 1_500, RunOutcome.FAILED, 3, "java.lang.Error: é");

        log.clear();
        boolean ended = history.completeFenced(
                change, List.of("x"), () -> database.jdbc().update(change, "x") == 1, failed, false);
        List<String> statements = log.executed();
        boolean refused = history.completeFenced(
                change,
                List.of("gone"),
                () -> database.jdbc().update(change, "gone") == 1,
                job("refused", "a", RunOutcome.SUCCEEDED, 1),
                false);
        boolean refusedButRan = history.completeFenced(
                change,
                List.of("gone"),
                () -> database.jdbc().update(change, "gone") == 1,
                job("ran", "a", RunOutcome.SUCCEEDED, 1),
                true);

        assertThat(ended).isTrue();
        assertThat(refused).isFalse();
        assertThat(refusedButRan).isFalse();
        if (database.dialect().changeWithInsert("UPDATE t SET c = 1", "INSERT INTO u VALUES (1)") != null) {
            assertThat(statements)
                    .as("statements of one fenced end with its record")
                    .hasSize(1);
        }
        assertThat(history.find(RunHistoryQuery.all()))
                .extracting(RunRecord::name)
                .containsExactlyInAnyOrder("mail", "ran");
        RunRecord record = history.find(RunHistoryQuery.all().task("mail")).get(0);
        assertThat(record.taskKey()).isEqualTo("k1");
        assertThat(record.fireAt()).isEqualTo(FIRE);
        assertThat(record.instance()).isEqualTo("a");
        assertThat(record.duration()).isEqualTo(Duration.ofMillis(1_500));
        assertThat(record.outcome()).isEqualTo(RunOutcome.FAILED);
        assertThat(record.attempt()).isEqualTo(3);
        assertThat(record.error()).isEqualTo("java.lang.Error: é");
        assertThat(record.startedAt()).isBefore(Instant.now().minusMillis(1_000));
    }

    /** Off: nothing written, nothing pruned, and a completion that is refused writes no record either. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteNothingWhenDisabledOrRefused(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory off = RunHistory.disabled(database);
        write(off, job("j", "a", RunOutcome.SUCCEEDED, 1));
        off.recordJoined(job("j", "a", RunOutcome.SUCCEEDED, 1));
        assertThat(off.prune()).isZero();
        RunHistory on = new RunHistory(database, RunHistorySettings.defaults());
        assertThat(on.complete(() -> false, job("j", "a", RunOutcome.SUCCEEDED, 1), false))
                .isFalse();
        assertThat(count(database)).isZero();
    }

    /** A record that cannot be written never holds the run's end back: the end is written alone. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteTheEndWhenTheRecordFails(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("DROP TABLE " + database.tables().runHistory());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        String now = database.dialect().now();

        boolean ended = history.complete(
                () -> database.jdbc()
                                .update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at)"
                                        + " VALUES ('ended', " + now + ", " + now + ")")
                        == 1,
                job("j", "a", RunOutcome.SUCCEEDED, 1),
                true);

        boolean fencedEnded = history.completeFenced(
                "UPDATE timed_jobs_instances SET heartbeat_at = " + now + " WHERE instance_name = ?",
                List.of("ended"),
                () -> database.jdbc()
                                .update("UPDATE timed_jobs_instances SET heartbeat_at = " + now
                                        + " WHERE instance_name = 'ended'")
                        == 1,
                job("j", "a", RunOutcome.SUCCEEDED, 1),
                false);

        assertThat(ended).isTrue();
        assertThat(fencedEnded).as("a fenced end whose record fails").isTrue();
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM timed_jobs_instances WHERE instance_name = 'ended'", Integer.class))
                .isEqualTo(1);
    }

    /**
     * Records that keep failing (the table gone) are warned of once, saying what to do, not once per
     * run; a record written again says so, and a later failure is a new warning.
     */
    @Test
    void shouldWarnOncePerSpellOfFailedRecords() {
        ClusterDatabase database = database(TestDatabases.newH2());
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        String table = database.tables().runHistory();
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        Logger logger = (Logger) LoggerFactory.getLogger(RunHistory.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            jdbc.execute("ALTER TABLE " + table + " RENAME TO moved_away");
            for (int run = 0; run < 3; run++) {
                write(history, job("j", "a", RunOutcome.SUCCEEDED, 1));
            }
            jdbc.execute("ALTER TABLE moved_away RENAME TO " + table);
            write(history, job("j", "a", RunOutcome.SUCCEEDED, 1));
            jdbc.execute("ALTER TABLE " + table + " RENAME TO moved_away");
            write(history, job("j", "a", RunOutcome.SUCCEEDED, 1));
        } finally {
            logger.detachAppender(events);
        }

        assertThat(events.list)
                .filteredOn(event -> event.getLevel() == Level.WARN)
                .hasSize(2)
                .allSatisfy(event -> assertThat(event.getFormattedMessage())
                        .contains(table)
                        .contains("timed-jobs.history.enabled=false"));
        assertThat(events.list)
                .filteredOn(event -> event.getLevel() == Level.INFO)
                .singleElement()
                .satisfies(event -> assertThat(event.getFormattedMessage()).contains("again"));
    }

    private static long count(ClusterDatabase database) {
        Long rows = new JdbcTemplate(database.dataSource())
                .queryForObject("SELECT COUNT(*) FROM " + database.tables().runHistory(), Long.class);
        return rows == null ? 0 : rows;
    }
}
