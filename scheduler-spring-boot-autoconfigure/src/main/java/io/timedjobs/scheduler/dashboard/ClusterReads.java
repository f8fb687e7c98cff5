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

/**
 * Thread-safe, stateless: the latest run history records of every clustered job, for the page's
 * timelines, in one statement whatever the number of jobs: a {@code UNION ALL} of one read per job
 * on the history's (name, start) index, so that a refresh costs the same with 1 job or 500.
 */
final class ClusterReads {

    private static final String RECORD_COLUMNS = "id, kind, name, task_key, fire_at, instance_name, started_at,"
            + " duration_ms, outcome, attempt, error, fire_until, fires, skip_reason, catch_up";

    private final ClusterDatabase database;

    ClusterReads(ClusterDatabase database) {
        this.database = Objects.requireNonNull(database, "database");
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
