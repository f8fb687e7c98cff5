package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe, stateless: the reads of the page that span every clustered job, each one statement
 * whatever the number of jobs, so that a refresh costs the same with 1 job or 500.
 *
 * <ul>
 *   <li>{@link #fireSummaries()}: per job, the fires the fires table keeps, told apart by the run
 *       history: a recorded fire that a skip record covers did not run (a paused fire claimed so
 *       that no instance runs it, a fire whose lease the previous run still held), so it counts as
 *       that skip and never names its claimer as the instance that ran it.
 *   <li>{@link #timelines(List, int)}: the latest records of each job, one {@code UNION ALL} branch
 *       per job on the history's (name, start) index.
 * </ul>
 */
final class ClusterReads {

    /** What the cluster did with a job's fires that the fires table keeps. */
    record FireSummary(
            long ran,
            long paused,
            long stillRunning,
            @Nullable Instant lastRunAt,
            @Nullable String lastRunBy) {}

    private static final String RECORD_COLUMNS = "id, kind, name, task_key, fire_at, instance_name, started_at,"
            + " duration_ms, outcome, attempt, error, fire_until, fires, skip_reason, catch_up";

    private final ClusterDatabase database;
    private final String fireSummaries;

    ClusterReads(ClusterDatabase database) {
        this.database = Objects.requireNonNull(database, "database");
        String fires = database.tables().fires();
        String history = database.tables().runHistory();
        // The skips whose fires a fire record may carry; few, as consecutive skips are one record.
        this.fireSummaries = "WITH s AS (SELECT name, fire_at, COALESCE(fire_until, fire_at) AS fire_to, skip_reason"
                + " FROM " + history + " WHERE outcome = 'SKIPPED' AND kind = 'JOB'"
                + " AND skip_reason IN ('PAUSED', 'STILL_RUNNING')),"
                // each recorded fire once, with the reason of a skip covering it (null: it ran)
                + " c AS (SELECT f.job_name, f.fire_at, MIN(s.skip_reason) AS reason FROM " + fires + " f"
                + " LEFT JOIN s ON s.name = f.job_name AND s.fire_at <= f.fire_at AND s.fire_to >= f.fire_at"
                + " GROUP BY f.job_name, f.fire_at),"
                + " j AS (SELECT job_name, SUM(CASE WHEN reason IS NULL THEN 1 ELSE 0 END) AS ran,"
                + " SUM(CASE WHEN reason = 'PAUSED' THEN 1 ELSE 0 END) AS paused,"
                + " SUM(CASE WHEN reason = 'STILL_RUNNING' THEN 1 ELSE 0 END) AS still_running,"
                + " MAX(CASE WHEN reason IS NULL THEN fire_at END) AS last_run_at FROM c GROUP BY job_name)"
                + " SELECT j.job_name, j.ran, j.paused, j.still_running, j.last_run_at, f.instance_name FROM j"
                + " LEFT JOIN " + fires + " f ON f.job_name = j.job_name AND f.fire_at = j.last_run_at";
    }

    /** Returns each job's fire summary, in one statement; jobs without fire records are absent. */
    Map<String, FireSummary> fireSummaries() {
        JdbcDialect dialect = database.dialect();
        Map<String, FireSummary> summaries = new LinkedHashMap<>();
        database.jdbc().query(fireSummaries, rs -> {
            summaries.put(
                    rs.getString("job_name"),
                    new FireSummary(
                            rs.getLong("ran"),
                            rs.getLong("paused"),
                            rs.getLong("still_running"),
                            dialect.readInstant(rs, "last_run_at"),
                            rs.getString("instance_name")));
        });
        return summaries;
    }

    /**
     * Returns the latest records (runs and skips) of each job, latest start first, at most {@code
     * limit} per job, in one statement; every job is a key, in the order given.
     */
    Map<String, List<RunView>> timelines(List<String> jobs, int limit) {
        Map<String, List<RunRecord>> records = new LinkedHashMap<>();
        jobs.forEach(job -> records.put(job, new ArrayList<>()));
        if (!jobs.isEmpty()) {
            JdbcDialect dialect = database.dialect();
            String branch = "(SELECT " + RECORD_COLUMNS + " FROM "
                    + database.tables().runHistory()
                    + " WHERE name = ? AND kind = 'JOB' ORDER BY started_at DESC, id DESC" + dialect.fetchFirst()
                    + ")";
            StringBuilder sql = new StringBuilder();
            List<Object> binds = new ArrayList<>(jobs.size() * 2);
            for (String job : jobs) {
                sql.append(binds.isEmpty() ? "" : " UNION ALL ").append(branch);
                binds.add(job);
                binds.add(limit);
            }
            database.jdbc().query(sql.toString(), ps -> dialect.bind(ps, binds), rs -> {
                RunRecord run = record(dialect, rs);
                List<RunRecord> timeline = records.get(run.name());
                if (timeline != null) {
                    timeline.add(run);
                }
            });
        }
        Map<String, List<RunView>> timelines = new LinkedHashMap<>();
        // a UNION ALL keeps no order: each job's latest first, as its branch read them
        Comparator<RunRecord> latestFirst = Comparator.comparing(RunRecord::startedAt)
                .thenComparingLong(RunRecord::id)
                .reversed();
        records.forEach((job, runs) -> timelines.put(
                job,
                runs.stream()
                        .sorted(latestFirst)
                        .map(run -> JdbcHistorySearch.view(run, false))
                        .toList()));
        return timelines;
    }

    private static RunRecord record(JdbcDialect dialect, ResultSet rs) throws SQLException {
        Instant fireAt = Objects.requireNonNull(dialect.readInstant(rs, "fire_at"));
        Instant fireUntil = dialect.readInstant(rs, "fire_until");
        String reason = rs.getString("skip_reason");
        return new RunRecord(
                rs.getLong("id"),
                RunKind.valueOf(rs.getString("kind")),
                rs.getString("name"),
                rs.getString("task_key"),
                fireAt,
                rs.getString("instance_name"),
                Objects.requireNonNull(dialect.readInstant(rs, "started_at")),
                Duration.ofMillis(rs.getLong("duration_ms")),
                RunOutcome.valueOf(rs.getString("outcome")),
                rs.getInt("attempt"),
                rs.getString("error"),
                fireUntil == null ? fireAt : fireUntil, // written by an instance of schema version 5
                rs.getLong("fires"),
                reason == null ? null : SkipReason.valueOf(reason),
                rs.getBoolean("catch_up"),
                null);
    }
}
