package io.timedjobs.scheduler.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.timedjobs.scheduler.dashboard.TimedJobsView.FateAt;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.jdbc.history.SkippedFires;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Searching the run history in the database through the endpoint's search: pages, filters, the fate at an instant. */
class JdbcHistorySearchTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T10:00:00Z");

    private final RunHistory history = history();

    private static RunHistory history() {
        ClusterDatabase database = ClusterDatabase.of(TestDatabases.Kind.H2.newDatabase(), TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        return new RunHistory(database, RunHistorySettings.defaults());
    }

    private static Instant fire(int second) {
        return FIRE.plusSeconds(second);
    }

    /** Runs at seconds 0 to 9 (the fourth throws), a pause over seconds 10 to 19, a run at 20. */
    private void record() {
        for (int second = 0; second <= 20; second++) {
            if (second >= 10 && second < 20) {
                history.recordSkip(
                        SkippedFires.one("report", fire(second), SkipReason.PAUSED, "b"),
                        fire -> fire == null ? null : fire.plusSeconds(1));
                continue;
            }
            Throwable failure = second == 3 ? new IllegalStateException("disk full") : null;
            history.complete(
                    () -> true,
                    new FinishedRun(
                            RunKind.JOB,
                            "report",
                            null,
                            fire(second),
                            second % 2 == 0 ? "a" : "b",
                            5,
                            failure == null ? RunOutcome.SUCCEEDED : RunOutcome.FAILED,
                            1,
                            failure == null ? null : RunHistory.errorSummary(failure),
                            false,
                            failure == null ? null : RunHistory.stackTrace(failure)),
                    true);
        }
    }

    private HistoryPage search(
            @Nullable String outcome, @Nullable String reason, @Nullable String at, @Nullable String cursor) {
        return JdbcHistorySearch.search(
                history, HistorySearch.parse("report", null, null, outcome, reason, null, null, at, "5", cursor));
    }

    /** Pages follow one another by cursor, every record once, the pause as one record of ten fires. */
    @Test
    void shouldPageThroughEveryRecordByCursor() {
        record();
        List<String> fires = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            HistoryPage page = search(null, null, null, cursor);
            assertThat(page.source()).isEqualTo("CLUSTER");
            page.runs().forEach(run -> fires.add(run.fireAt()));
            cursor = page.next();
            pages++;
        } while (cursor != null && pages < 10);
        assertThat(fires).hasSize(12).doesNotHaveDuplicates();
        assertThat(pages).isEqualTo(3);
    }

    /**
     * A reason filter finds the pause with its range; an outcome filter the failure without its
     * stack trace, which the fate at its fire carries.
     */
    @Test
    void shouldFindSkipsByReasonAndFailuresWithTheirStackTrace() {
        record();
        assertThat(search(null, "PAUSED", null, null).runs()).singleElement().satisfies(skip -> {
            assertThat(skip.outcome()).isEqualTo("SKIPPED");
            assertThat(skip.skipReason()).isEqualTo("PAUSED");
            assertThat(skip.fireAt()).isEqualTo(fire(10).toString());
            assertThat(skip.fireUntil()).isEqualTo(fire(19).toString());
            assertThat(skip.fires()).isEqualTo(10);
            assertThat(skip.startedAt()).isNull();
        });
        assertThat(search("FAILED", null, null, null).runs()).singleElement().satisfies(failed -> {
            assertThat(failed.fireAt()).isEqualTo(fire(3).toString());
            assertThat(failed.instance()).isEqualTo("b");
            assertThat(failed.error()).isEqualTo("java.lang.IllegalStateException: disk full");
            assertThat(failed.stackTrace()).isNull();
        });
        assertThat(search(null, null, fire(3).toString(), null).runs())
                .filteredOn(run -> run.fireAt().equals(fire(3).toString()))
                .singleElement()
                .satisfies(failed -> assertThat(failed.stackTrace())
                        .contains("at io.timedjobs.scheduler.dashboard.JdbcHistorySearchTest"));
    }

    /** The fate at an instant inside the pause is the pause, with the runs just before and after it. */
    @Test
    void shouldAnswerTheFateAtAnInstant() {
        record();
        assertThat(search(null, null, fire(15).toString(), null).runs())
                .extracting(RunView::fireAt, RunView::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(fire(20).toString(), "SUCCEEDED"),
                        org.assertj.core.groups.Tuple.tuple(fire(10).toString(), "SKIPPED"),
                        org.assertj.core.groups.Tuple.tuple(fire(9).toString(), "SUCCEEDED"));
    }

    /**
     * The answer at an instant says which record covers it: the pause over its range, a run at its
     * fire, none between two fires; each with the neighbours either side.
     */
    @Test
    void shouldSayWhichRecordCoversAnInstant() {
        record();
        FateAt paused = search(null, null, fire(15).toString(), null).fate();
        assertThat(paused.fate()).isEqualTo("skipped");
        assertThat(paused.covering()).extracting(RunView::fireAt).containsExactly(fire(10).toString());
        assertThat(paused.before().fireAt()).isEqualTo(fire(9).toString());
        assertThat(paused.after().fireAt()).isEqualTo(fire(20).toString());

        FateAt failed = search(null, null, fire(3).toString(), null).fate();
        assertThat(failed.fate()).isEqualTo("ran");
        assertThat(failed.covering())
                .singleElement()
                .satisfies(run -> assertThat(run.stackTrace()).contains("disk full"));

        FateAt between =
                search(null, null, fire(20).plusMillis(500).toString(), null).fate();
        assertThat(between.fate()).isEqualTo("none");
        assertThat(between.covering()).isEmpty();
        assertThat(between.before().fireAt()).isEqualTo(fire(20).toString());
        assertThat(between.after()).isNull();
    }

    /** A durable task's failed record, listed without its stack trace, opens whole by its id. */
    @Test
    void shouldOpenATasksRecordWholeByItsId() {
        Throwable failure = new IllegalStateException("smtp refused");
        history.complete(
                () -> true,
                new FinishedRun(
                        RunKind.TASK,
                        "mail",
                        "order-7",
                        fire(0),
                        "a",
                        5,
                        RunOutcome.FAILED,
                        2,
                        RunHistory.errorSummary(failure),
                        false,
                        RunHistory.stackTrace(failure)),
                true);
        record();
        RunView listed = JdbcHistorySearch.search(
                        history, HistorySearch.parse(null, "mail", null, null, null, null, null, null, null, null))
                .runs()
                .get(0);
        assertThat(listed.stackTrace()).isNull();
        assertThat(listed.id()).startsWith("C");

        RunView opened =
                JdbcHistorySearch.record(history, Long.parseLong(listed.id().substring(1)));

        assertThat(opened).isNotNull();
        assertThat(opened.kind()).isEqualTo("TASK");
        assertThat(opened.taskKey()).isEqualTo("order-7");
        assertThat(opened.stackTrace()).startsWith("java.lang.IllegalStateException: smtp refused");
        assertThat(JdbcHistorySearch.record(history, 1_000_000L)).isNull();
    }

    /** A catch-up run is marked as one. */
    @Test
    void shouldMarkACatchUpRun() {
        history.complete(
                () -> true,
                new FinishedRun(
                        RunKind.JOB, "report", null, fire(0), "a", 5, RunOutcome.SUCCEEDED, 1, null, true, null),
                true);
        assertThat(search(null, null, null, null).runs())
                .singleElement()
                .satisfies(run -> assertThat(run.catchUp()).isTrue());
    }

    /** A cursor this search did not give is refused with a message that says so. */
    @Test
    void shouldRefuseAForeignCursor() {
        assertThatThrownBy(() -> search(null, null, null, "L12")).hasMessageContaining("cursor 'L12'");
        assertThatThrownBy(() -> search(null, null, null, "C0")).hasMessageContaining("cursor 'C0'");
    }
}
