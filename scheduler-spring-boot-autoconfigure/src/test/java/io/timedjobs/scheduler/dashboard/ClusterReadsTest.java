package io.timedjobs.scheduler.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.dashboard.FireSummaries.FireSummary;
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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The page's reads across every clustered job, each one statement, on each supported database. */
class ClusterReadsTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T10:00:00Z");

    private static Instant fire(int second) {
        return FIRE.plusSeconds(second);
    }

    private static ClusterDatabase database(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(kind.newDatabase(), TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        return database;
    }

    private static void recordFire(ClusterDatabase database, String job, int second, String instance) {
        database.jdbc()
                .update(
                        "INSERT INTO " + database.tables().fires()
                                + " (job_name, fire_at, instance_name, recorded_at) VALUES (?, ?, ?, ?)",
                        job,
                        database.dialect().bind(fire(second)),
                        instance,
                        database.dialect().bind(fire(second)));
    }

    private static void ran(RunHistory history, String job, int second, String instance) {
        history.complete(
                () -> true,
                new FinishedRun(
                        RunKind.JOB, job, null, fire(second), instance, 5, RunOutcome.SUCCEEDED, 1, null, false, null),
                true);
    }

    /**
     * "report": fires 0 to 3 ran on a, 4 to 6 were claimed by b while paused, 7 was recorded by c
     * while the previous run held the lease. "other": fires 0 and 1 ran on b, with no history.
     */
    private static RunHistory record(ClusterDatabase database) {
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        for (int second = 0; second <= 3; second++) {
            recordFire(database, "report", second, "a");
            ran(history, "report", second, "a");
        }
        for (int second = 4; second <= 6; second++) {
            recordFire(database, "report", second, "b");
        }
        history.recordSkip(
                new SkippedFires("report", fire(4), fire(6), 3, SkipReason.PAUSED, "b"), f -> f == null ? null : f);
        recordFire(database, "report", 7, "c");
        history.recordSkip(SkippedFires.one("report", fire(7), SkipReason.STILL_RUNNING, "c"), f -> f);
        recordFire(database, "other", 0, "b");
        recordFire(database, "other", 1, "b");
        return history;
    }

    /**
     * A recorded fire that the history records as skipped counts as that skip, not as a run, and the
     * last fire that ran names the instance that ran it, not a later claimer.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTellClaimedAndBlockedFiresFromRuns(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind);
        record(database);

        Map<String, FireSummary> summaries = new FireSummaries(database).read();

        assertThat(summaries)
                .containsOnlyKeys("report", "other")
                .containsEntry("report", new FireSummary(4, 3, 1, 0, fire(3), "a"))
                .containsEntry("other", new FireSummary(2, 0, 0, 0, fire(1), "b"));
    }

    /**
     * A fire a stopping instance claimed and refused counts as a STOPPING skip, not a run, and the
     * last fire that ran names the instance that ran it, not the stopping claimer.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCountAStoppingClaimAsASkip(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind);
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        recordFire(database, "report", 0, "a");
        ran(history, "report", 0, "a");
        recordFire(database, "report", 1, "b");
        history.recordSkip(SkippedFires.one("report", fire(1), SkipReason.STOPPING, "b"), f -> f);

        FireSummary summary = new FireSummaries(database).read().get("report");

        assertThat(summary).isEqualTo(new FireSummary(1, 0, 0, 1, fire(0), "a"));
    }

    /**
     * The timelines of all jobs come in one read: each job's latest records, at most the limit, latest
     * start first, and an empty list for a job with none.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReadEveryJobsLatestRecordsAtOnce(TestDatabases.Kind kind) {
        ClusterDatabase database = database(kind);
        RunHistory history = record(database);
        ran(history, "other", 1, "b");
        ClusterReads reads = new ClusterReads(database);

        Map<String, List<RunView>> all = reads.timelines(List.of("report", "other", "none"), 10);
        Map<String, List<RunView>> latest = reads.timelines(List.of("report", "other"), 3);

        assertThat(all).containsOnlyKeys("report", "other", "none");
        assertThat(all.get("report"))
                .hasSize(6)
                .allSatisfy(run -> assertThat(run.name()).isEqualTo("report"));
        assertThat(all.get("report"))
                .filteredOn(run -> "SKIPPED".equals(run.outcome()))
                .extracting(RunView::skipReason)
                .containsExactlyInAnyOrder("PAUSED", "STILL_RUNNING");
        assertThat(all.get("other"))
                .singleElement()
                .satisfies(run -> assertThat(run.instance()).isEqualTo("b"));
        assertThat(all.get("none")).isEmpty();
        assertThat(latest.get("report")).hasSize(3);
        assertThat(latest.get("report").get(0).fireAt())
                .isEqualTo(all.get("report").get(0).fireAt());
        assertThat(reads.timelines(List.of(), 10)).isEmpty();
    }
}
