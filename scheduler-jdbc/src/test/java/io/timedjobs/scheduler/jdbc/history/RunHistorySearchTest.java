package io.timedjobs.scheduler.jdbc.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The history of fates on each database: skips coalesced and written once across instances, found
 * by reason and by a window over nominal fires, paged by a cursor, a job's fate at an instant, and
 * bounded stack traces.
 */
class RunHistorySearchTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T10:00:00Z");

    /** A job firing every second. */
    private static final UnaryOperator<@Nullable Instant> EVERY_SECOND =
            fire -> fire == null ? null : fire.plusSeconds(1);

    private static ClusterDatabase database(DataSource dataSource) {
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        return database;
    }

    private static Instant fire(int second) {
        return FIRE.plusSeconds(second);
    }

    private static void ran(
            RunHistory history, String job, Instant fire, String instance, @Nullable Throwable failure) {
        history.complete(
                () -> true,
                new FinishedRun(
                        RunKind.JOB,
                        job,
                        null,
                        fire,
                        instance,
                        5,
                        failure == null ? RunOutcome.SUCCEEDED : RunOutcome.FAILED,
                        1,
                        failure == null ? null : RunHistory.errorSummary(failure),
                        false,
                        failure == null ? null : RunHistory.stackTrace(failure)),
                true);
    }

    /**
     * Three instances notice each of 30 skipped fires of a job paused, in turn: one record covers
     * them all, 30 fires, whoever wrote it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordConsecutiveSkipsOnceAsOneRecordAcrossInstances(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        List<RunHistory> instances = List.of(
                new RunHistory(database, RunHistorySettings.defaults()),
                new RunHistory(database, RunHistorySettings.defaults()),
                new RunHistory(database, RunHistorySettings.defaults()));
        int written = 0;
        for (int second = 0; second < 30; second++) {
            for (int i = 0; i < instances.size(); i++) {
                // each instance in another order, as fires reach them at their own moments
                RunHistory instance = instances.get((i + second) % instances.size());
                if (instance.recordSkip(
                        SkippedFires.one("report", fire(second), SkipReason.PAUSED, "i" + i), EVERY_SECOND)) {
                    written++;
                }
            }
        }

        List<RunRecord> records = instances.get(0).find(RunHistoryQuery.all().job("report"));
        assertThat(records).singleElement().satisfies(record -> {
            assertThat(record.outcome()).isEqualTo(RunOutcome.SKIPPED);
            assertThat(record.skipReason()).isEqualTo(SkipReason.PAUSED);
            assertThat(record.fireAt()).isEqualTo(fire(0));
            assertThat(record.fireUntil()).isEqualTo(fire(29));
            assertThat(record.fires()).isEqualTo(30);
            assertThat(record.duration()).isZero();
        });
        assertThat(written).as("one write per fire").isEqualTo(30);
    }

    /**
     * Three instances back from an outage write overlapping ranges of skipped fires at once, each
     * from another first fire: every fire is covered by exactly one record, none of a range lost.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCoverEachFireOnceWhenOverlappingRangesRace(TestDatabases.Kind kind) throws Exception {
        ClusterDatabase database = database(kind.newDatabase());
        org.springframework.jdbc.core.JdbcTemplate jdbc =
                new org.springframework.jdbc.core.JdbcTemplate(database.dataSource());
        int[][] ranges = {{0, 9}, {3, 14}, {6, 19}};
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 10; round++) {
                String job = "sync" + round;
                jdbc.update(
                        "INSERT INTO timed_jobs_jobs (job_name, kind, schedule, created_at) VALUES (?, 'CRON',"
                                + " '* * * * * *', CURRENT_TIMESTAMP)",
                        job);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    int[] range = ranges[i];
                    String name = "i" + i;
                    RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
                    done.add(threads.submit(() -> {
                        start.await();
                        history.recordSkip(
                                new SkippedFires(
                                        job,
                                        fire(range[0]),
                                        fire(range[1]),
                                        range[1] - range[0] + 1,
                                        SkipReason.DATABASE_DOWN,
                                        name),
                                EVERY_SECOND);
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> each : done) {
                    each.get(60, TimeUnit.SECONDS);
                }
                List<RunRecord> records = new RunHistory(database, RunHistorySettings.defaults())
                        .find(RunHistoryQuery.all().job(job));
                for (int second = 0; second <= 19; second++) {
                    Instant at = fire(second);
                    assertThat(records.stream().filter(record -> record.covers(at)))
                            .as("records of %s covering %s among %s", job, at, records)
                            .hasSize(1);
                }
                assertThat(records.stream().mapToLong(RunRecord::fires).sum())
                        .as("fires counted")
                        .isEqualTo(20);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * Three instances on their own threads notice the same 40 skipped fires at once: every fire is
     * counted once, however their writes interleave.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCountEachSkippedFireOnceWhenInstancesRace(TestDatabases.Kind kind) throws Exception {
        ClusterDatabase database = database(kind.newDatabase());
        int fires = 40;
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try {
            List<Future<?>> done = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int i = 0; i < 3; i++) {
                String name = "i" + i;
                RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
                done.add(threads.submit(() -> {
                    start.await();
                    for (int second = 0; second < fires; second++) {
                        // the pause ends for one fire in the middle: that fire runs
                        if (second != 20) {
                            history.recordSkip(
                                    SkippedFires.one("report", fire(second), SkipReason.PAUSED, name), EVERY_SECOND);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        List<RunRecord> records = new RunHistory(database, RunHistorySettings.defaults())
                .find(RunHistoryQuery.all().job("report"));
        assertThat(records.stream().mapToLong(RunRecord::fires).sum())
                .as("fires covered, each once")
                .isEqualTo(fires - 1);
        for (int second = 0; second < fires; second++) {
            Instant at = fire(second);
            assertThat(records.stream().filter(record -> record.covers(at)).count())
                    .as("records covering fire %s", second)
                    .isEqualTo(second == 20 ? 0 : 1);
        }
    }

    /** A run between skips ends the skip's record: the skips after it are a record of their own. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldStartANewSkipAfterARun(TestDatabases.Kind kind) {
        RunHistory history = new RunHistory(database(kind.newDatabase()), RunHistorySettings.defaults());
        for (int second = 0; second < 3; second++) {
            history.recordSkip(SkippedFires.one("sync", fire(second), SkipReason.STILL_RUNNING, "a"), EVERY_SECOND);
        }
        ran(history, "sync", fire(3), "a", null);
        for (int second = 4; second < 6; second++) {
            history.recordSkip(SkippedFires.one("sync", fire(second), SkipReason.STILL_RUNNING, "a"), EVERY_SECOND);
        }
        history.recordSkip(SkippedFires.one("sync", fire(6), SkipReason.DATABASE_DOWN, "a"), EVERY_SECOND);

        assertThat(history.find(RunHistoryQuery.all().job("sync")).stream()
                        .map(record -> record.fireAt() + ".." + record.fireUntil() + " " + record.fires() + " "
                                + (record.skipped() ? record.skipReason() : record.outcome()))
                        .toList())
                .containsExactlyInAnyOrder(
                        fire(0) + ".." + fire(2) + " 3 STILL_RUNNING",
                        fire(3) + ".." + fire(3) + " 1 SUCCEEDED",
                        fire(4) + ".." + fire(5) + " 2 STILL_RUNNING",
                        fire(6) + ".." + fire(6) + " 1 DATABASE_DOWN");
    }

    /**
     * A range of fires recorded twice (two instances back from an outage) is one record; of one that
     * overlaps a recorded one only the fires after it are written, and of one that overlaps a run,
     * the fires before it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldNotRecordARangeTwice(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory a = new RunHistory(database, RunHistorySettings.defaults());
        RunHistory b = new RunHistory(database, RunHistorySettings.defaults());
        assertThat(a.recordSkip(new SkippedFires("sync", fire(0), fire(9), 10, SkipReason.MISSED, "a"), EVERY_SECOND))
                .isTrue();
        assertThat(b.recordSkip(new SkippedFires("sync", fire(0), fire(9), 10, SkipReason.MISSED, "b"), EVERY_SECOND))
                .isFalse();
        assertThat(b.recordSkip(new SkippedFires("sync", fire(2), fire(7), 6, SkipReason.MISSED, "b"), EVERY_SECOND))
                .isFalse();
        assertThat(b.recordSkip(new SkippedFires("sync", fire(5), fire(12), 8, SkipReason.MISSED, "b"), EVERY_SECOND))
                .isTrue();
        assertThat(a.find(RunHistoryQuery.all().job("sync")).stream()
                        .map(record -> record.fireAt() + ".." + record.fireUntil() + " " + record.fires())
                        .toList())
                .as("the fires after the range, which follow it for the same reason, grow it")
                .containsExactly(fire(0) + ".." + fire(12) + " 13");
        // an instance that was still cut off while another ran a fire: the fires before that run
        a.complete(
                () -> true,
                new FinishedRun(RunKind.JOB, "sync", null, fire(20), "a", 1, RunOutcome.SUCCEEDED, 1, null),
                true);
        assertThat(b.recordSkip(
                        new SkippedFires("sync", fire(15), fire(20), 6, SkipReason.DATABASE_DOWN, "b"), EVERY_SECOND))
                .isTrue();
        assertThat(a.find(RunHistoryQuery.all().job("sync").skipReason(SkipReason.DATABASE_DOWN)))
                .singleElement()
                .satisfies(down -> {
                    assertThat(down.fireAt()).isEqualTo(fire(15));
                    assertThat(down.fireUntil()).isEqualTo(fire(19));
                    assertThat(down.fires()).isEqualTo(5);
                });
    }

    /**
     * A range that overlaps recorded fires on both sides and between them writes every fire left:
     * the gaps before, between and after them, each fire of the range covered once.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteEveryGapOfARangeAroundRecordedFires(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        history.recordSkip(new SkippedFires("sync", fire(3), fire(4), 2, SkipReason.STILL_RUNNING, "a"), EVERY_SECOND);
        ran(history, "sync", fire(7), "a", null);

        assertThat(history.recordSkip(
                        new SkippedFires("sync", fire(0), fire(10), 11, SkipReason.DATABASE_DOWN, "b"), EVERY_SECOND))
                .isTrue();

        assertThat(history.find(RunHistoryQuery.all().job("sync").skipReason(SkipReason.DATABASE_DOWN)).stream()
                        .map(down -> down.fireAt() + ".." + down.fireUntil() + " " + down.fires())
                        .sorted()
                        .toList())
                .containsExactly(
                        fire(0) + ".." + fire(2) + " 3",
                        fire(5) + ".." + fire(6) + " 2",
                        fire(8) + ".." + fire(10) + " 3");
        List<RunRecord> all = history.find(RunHistoryQuery.all().job("sync"));
        for (int second = 0; second <= 10; second++) {
            Instant at = fire(second);
            assertThat(all.stream().filter(record -> record.covers(at)))
                    .as("fates at %s", at)
                    .hasSize(1);
        }
    }

    /**
     * Two reasons on the same fires, neither claimed in the fires table: an instance that would
     * extend its own record over fires another instance has just recorded for another reason finds
     * that record under the job's lock and writes none of them; each fire keeps one fate.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepOneFateWhenTwoReasonsMeetOnAFire(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory a = new RunHistory(database, RunHistorySettings.defaults());
        RunHistory b = new RunHistory(database, RunHistorySettings.defaults());
        assertThat(a.recordSkip(SkippedFires.one("sync", fire(0), SkipReason.DATABASE_DOWN, "a"), EVERY_SECOND))
                .isTrue();
        assertThat(a.recordSkip(
                        new SkippedFires("sync", fire(1), fire(2), 2, SkipReason.DATABASE_DOWN, "a"), EVERY_SECOND))
                .as("extends the record: a knows where it ends")
                .isTrue();
        // b, starting, finds the fires after a's record missed while every instance was down
        assertThat(b.recordSkip(new SkippedFires("sync", fire(3), fire(5), 3, SkipReason.MISSED, "b"), EVERY_SECOND))
                .isTrue();

        // a's outage went on over fires 3 and 4: its record ends where a saw it end, right before them
        assertThat(a.recordSkip(
                        new SkippedFires("sync", fire(3), fire(4), 2, SkipReason.DATABASE_DOWN, "a"), EVERY_SECOND))
                .as("covered already")
                .isFalse();
        assertThat(a.recordSkip(
                        new SkippedFires("sync", fire(3), fire(7), 5, SkipReason.DATABASE_DOWN, "a"), EVERY_SECOND))
                .as("the fires after the other record")
                .isTrue();

        List<RunRecord> all = a.find(RunHistoryQuery.all().job("sync"));
        for (int second = 0; second <= 7; second++) {
            Instant at = fire(second);
            assertThat(all.stream().filter(record -> record.covers(at)))
                    .as("fates at %s among %s", at, all)
                    .hasSize(1);
        }
    }

    /** Skip reasons and outcomes filter as one condition, and the window over nominal fires finds a range by any fire in it. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldFindBySkipReasonAndByAWindowOverFires(TestDatabases.Kind kind) {
        RunHistory history = new RunHistory(database(kind.newDatabase()), RunHistorySettings.defaults());
        history.recordSkip(new SkippedFires("sync", fire(0), fire(99), 100, SkipReason.PAUSED, "a"), EVERY_SECOND);
        ran(history, "sync", fire(100), "a", new IllegalStateException("boom"));
        ran(history, "sync", fire(101), "b", null);
        history.recordSkip(SkippedFires.one("sync", fire(102), SkipReason.STILL_RUNNING, "b"), EVERY_SECOND);

        assertThat(history.find(RunHistoryQuery.all().skipReason(SkipReason.PAUSED)))
                .extracting(RunRecord::fireAt)
                .containsExactly(fire(0));
        assertThat(history.find(RunHistoryQuery.all().skips())).hasSize(2);
        assertThat(history.find(RunHistoryQuery.all().failures().skipReason(SkipReason.STILL_RUNNING)))
                .extracting(RunRecord::fireAt)
                .containsExactlyInAnyOrder(fire(100), fire(102));
        assertThat(history.find(RunHistoryQuery.all().firesFrom(fire(50)).firesTo(fire(51))))
                .as("the pause covers fire 50")
                .extracting(RunRecord::fireAt)
                .containsExactly(fire(0));
        assertThat(history.find(RunHistoryQuery.all().firesFrom(fire(99)).firesTo(fire(101))))
                .as("from included, to excluded")
                .extracting(RunRecord::fireAt)
                .containsExactlyInAnyOrder(fire(0), fire(100));
        assertThat(history.find(RunHistoryQuery.all().firesFrom(fire(103)))).isEmpty();
        assertThat(history.find(RunHistoryQuery.all().instance("b").skips()))
                .extracting(RunRecord::skipReason)
                .containsExactly(SkipReason.STILL_RUNNING);
    }

    /** The fate of a job at an instant: the record covering it, or the nearest ones around it. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldAnswerWhatHappenedToAJobAtAnInstant(TestDatabases.Kind kind) {
        RunHistory history = new RunHistory(database(kind.newDatabase()), RunHistorySettings.defaults());
        ran(history, "sync", fire(0), "a", null);
        history.recordSkip(
                new SkippedFires("sync", fire(10), fire(20), 11, SkipReason.DATABASE_DOWN, "b"), EVERY_SECOND);
        ran(history, "sync", fire(30), "c", null);
        ran(history, "other", fire(15), "c", null);

        FireFate paused = history.fateAt("sync", fire(15));
        assertThat(paused.known()).isTrue();
        assertThat(paused.covering()).singleElement().satisfies(record -> {
            assertThat(record.skipReason()).isEqualTo(SkipReason.DATABASE_DOWN);
            assertThat(record.instance()).isEqualTo("b");
        });
        assertThat(paused.before().fireAt()).isEqualTo(fire(0));
        assertThat(paused.after().fireAt()).isEqualTo(fire(30));

        FireFate ran = history.fateAt("sync", fire(0));
        assertThat(ran.covering())
                .singleElement()
                .satisfies(record -> assertThat(record.instance()).isEqualTo("a"));
        assertThat(ran.before()).isNull();

        FireFate between = history.fateAt("sync", fire(25));
        assertThat(between.known()).isFalse();
        assertThat(between.before().fireUntil()).isEqualTo(fire(20));
        assertThat(between.after().fireAt()).isEqualTo(fire(30));
    }

    /**
     * Paging by the cursor while another thread writes records: the pages hold every record there
     * was when the first was read, each once, latest written first.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldPageWithoutRepeatsOrGapsWhileRecordsAreWritten(TestDatabases.Kind kind) throws Exception {
        ClusterDatabase database = database(kind.newDatabase());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        for (int second = 0; second < 45; second++) {
            ran(history, "sync", fire(second), "a", null);
        }
        RunHistoryPage first = history.page(RunHistoryQuery.all().job("sync").limit(7));
        Set<Long> before = new HashSet<>(new JdbcTemplate(database.dataSource())
                .queryForList("SELECT id FROM timed_jobs_run_history", Long.class));
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService writer = Executors.newSingleThreadExecutor();
        List<Long> seen = new ArrayList<>();
        try {
            Future<?> writing = writer.submit(() -> {
                RunHistory other = new RunHistory(database, RunHistorySettings.defaults());
                for (int second = 100; !stop.get() && second < 10_000; second++) {
                    ran(other, "sync", fire(second), "b", null);
                }
            });
            RunHistoryPage page = first;
            first.records().forEach(record -> seen.add(record.id()));
            while (page.nextCursor() != null) {
                page = history.page(RunHistoryQuery.all().job("sync").limit(7).cursor(page.nextCursor()));
                page.records().forEach(record -> seen.add(record.id()));
                assertThat(page.records().size()).isLessThanOrEqualTo(7);
            }
            stop.set(true);
            writing.get(30, TimeUnit.SECONDS);
        } finally {
            writer.shutdownNow();
        }

        assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(before);
        assertThat(seen).isSortedAccordingTo((x, y) -> Long.compare(y, x));
    }

    /** A failure's stack trace is kept whole frames first, within its bound, with the frames left out counted. */
    @Test
    void shouldBoundStackTraces() {
        IllegalStateException deep = deep(600);
        String trace = RunHistory.stackTrace(deep);
        assertThat(trace.length()).isLessThanOrEqualTo(RunHistory.STACK_TRACE_LENGTH);
        assertThat(trace).startsWith("java.lang.IllegalStateException: at the bottom");
        assertThat(trace).containsPattern("\\n\\t\\.\\.\\. \\d+ more$");
        int kept = (int) trace.lines().filter(line -> line.startsWith("\tat ")).count();
        int leftOut = Integer.parseInt(trace.replaceAll("(?s).*\\.\\.\\. (\\d+) more$", "$1"));
        assertThat(kept + leftOut + 1).as("every line kept or counted").isEqualTo((int) wholeTrace(deep));

        IllegalStateException shallow = new IllegalStateException("short");
        shallow.setStackTrace(java.util.Arrays.copyOf(shallow.getStackTrace(), 3));
        assertThat(RunHistory.stackTrace(shallow)).doesNotContain("more").contains("\tat ");
        assertThat(RunHistory.stackTrace(new IllegalStateException("x".repeat(20_000))))
                .hasSizeLessThanOrEqualTo(RunHistory.STACK_TRACE_LENGTH);
    }

    /** A failed run's stack trace is written and read back, bounded, on each database. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepAFailedRunsStackTrace(TestDatabases.Kind kind) {
        RunHistory history = new RunHistory(database(kind.newDatabase()), RunHistorySettings.defaults());
        ran(history, "sync", fire(0), "a", deep(600));
        RunRecord failed = history.find(RunHistoryQuery.all().failures()).get(0);
        assertThat(failed.stackTrace())
                .isEqualTo(RunHistory.stackTrace(deep(600)).replace("deep(", "deep("));
        assertThat(failed.stackTrace().length()).isLessThanOrEqualTo(RunHistory.STACK_TRACE_LENGTH);
        assertThat(failed.error()).isEqualTo("java.lang.IllegalStateException: at the bottom");
        assertThat(history.fateAt("sync", fire(0)).covering())
                .singleElement()
                .extracting(RunRecord::stackTrace)
                .isEqualTo(failed.stackTrace());
    }

    /** A page of a list or a search reads no stack trace: its records carry none; one run's read keeps it. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReadNoStackTraceForAPage(TestDatabases.Kind kind) {
        RunHistory history = new RunHistory(database(kind.newDatabase()), RunHistorySettings.defaults());
        ran(history, "sync", fire(0), "a", deep(600));
        ran(history, "sync", fire(1), "a", deep(10));

        assertThat(history.page(RunHistoryQuery.all().job("sync").limit(10)).records())
                .hasSize(2)
                .allSatisfy(record -> {
                    assertThat(record.stackTrace()).isNull();
                    assertThat(record.error()).isEqualTo("java.lang.IllegalStateException: at the bottom");
                });
        assertThat(history.fateAt("sync", fire(1)).covering())
                .singleElement()
                .extracting(RunRecord::stackTrace)
                .isNotNull();
    }

    /**
     * A record written as an instance of schema version 5 writes it (none of the new columns) reads
     * as one run of one fire.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReadARecordOfAVersion5Instance(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind.newDatabase());
        String now = database.dialect().now();
        new JdbcTemplate(database.dataSource())
                .update("INSERT INTO timed_jobs_run_history (kind, name, task_key, fire_at, instance_name, started_at,"
                        + " duration_ms, outcome, attempt, error) VALUES ('JOB', 'sync', NULL, " + now + ", 'old', "
                        + now + ", 3, 'SUCCEEDED', 1, NULL)");
        RunRecord old = new RunHistory(database, RunHistorySettings.defaults())
                .find(RunHistoryQuery.all())
                .get(0);
        assertThat(old.fireUntil()).isEqualTo(old.fireAt());
        assertThat(old.fires()).isEqualTo(1);
        assertThat(old.skipReason()).isNull();
        assertThat(old.catchUp()).isFalse();
        assertThat(old.stackTrace()).isNull();
        assertThat(old.duration()).isEqualTo(Duration.ofMillis(3));
    }

    /** Bad queries and skips are refused with a message. */
    @Test
    void shouldRefuseBadQueries() {
        assertThatThrownBy(() -> RunHistoryQuery.all().cursor(0)).hasMessageContaining("cursor");
        assertThatThrownBy(() -> RunHistoryQuery.all().firesFrom(fire(2)).firesTo(fire(1)))
                .hasMessageContaining("not before");
        assertThatThrownBy(() -> RunHistoryQuery.all().limit(RunHistoryQuery.MAX_LIMIT + 1))
                .hasMessageContaining("limit");
        assertThatThrownBy(() -> new SkippedFires("j", fire(1), fire(0), 2, SkipReason.MISSED, "a"))
                .hasMessageContaining("cannot be");
    }

    private static IllegalStateException deep(int depth) {
        if (depth == 0) {
            return new IllegalStateException("at the bottom");
        }
        return deep(depth - 1);
    }

    private static long wholeTrace(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        return text.toString().lines().count();
    }
}
