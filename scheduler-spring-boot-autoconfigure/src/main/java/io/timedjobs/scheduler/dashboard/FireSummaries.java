package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe, stateless: per clustered job, what became of the fires the fires table keeps (twice
 * the fire horizon), told apart by the run history. A recorded fire that a skip record covers did
 * not run: a paused fire claimed so that no instance runs it, a fire a stopping instance claimed and
 * refused, or a fire whose lease the previous run still held. It counts as that skip, and never names its claimer as the instance that ran it.
 *
 * <p>Two statements whatever the number of jobs, and a third while some job has such skips among
 * its kept fires:
 *
 * <ol>
 *   <li>the skip records that reach the oldest kept fire: few, as consecutive skips for one reason
 *       are one record and the fires table keeps minutes;
 *   <li>per job, its kept fires, the latest and the instance that recorded it, in one grouped scan;
 *   <li>for the jobs those skips name only, their kept fires, told apart here.
 * </ol>
 */
final class FireSummaries {

    /** What the cluster did with a job's kept fires. */
    record FireSummary(
            long ran,
            long paused,
            long stillRunning,
            long stopping,
            @Nullable Instant lastRunAt,
            @Nullable String lastRunBy) {}

    /** Skipped fires from {@code from} to {@code to}, both included. */
    private record Skip(Instant from, Instant to, String reason) {

        boolean covers(Instant fire) {
            return !fire.isBefore(from) && !fire.isAfter(to);
        }
    }

    private final ClusterDatabase database;
    private final String skips;
    private final String grouped;
    private final String firesOf;

    FireSummaries(ClusterDatabase database) {
        this.database = Objects.requireNonNull(database, "database");
        String fires = database.tables().fires();
        this.skips = "SELECT name, fire_at, fire_until, skip_reason FROM "
                + database.tables().runHistory()
                + " WHERE outcome = 'SKIPPED' AND kind = 'JOB' AND skip_reason IN ('PAUSED', 'STILL_RUNNING', 'STOPPING')"
                + " AND COALESCE(fire_until, fire_at) >= (SELECT MIN(fire_at) FROM " + fires + ")";
        this.grouped = "SELECT f.job_name, l.fires, f.fire_at, f.instance_name FROM " + fires + " f"
                + " JOIN (SELECT job_name, COUNT(*) AS fires, MAX(fire_at) AS last_fire_at FROM " + fires
                + " GROUP BY job_name) l ON f.job_name = l.job_name AND f.fire_at = l.last_fire_at";
        this.firesOf = "SELECT job_name, fire_at, instance_name FROM " + fires + " WHERE job_name IN (";
    }

    /** Returns each job's summary; jobs without kept fires are absent. */
    Map<String, FireSummary> read() {
        JdbcDialect dialect = database.dialect();
        Map<String, List<Skip>> skipsByJob = new HashMap<>();
        database.jdbc().query(skips, rs -> {
            Instant from = Objects.requireNonNull(dialect.readInstant(rs, "fire_at"));
            Instant to = dialect.readInstant(rs, "fire_until");
            skipsByJob
                    .computeIfAbsent(rs.getString("name"), job -> new ArrayList<>())
                    .add(new Skip(from, to == null ? from : to, rs.getString("skip_reason")));
        });
        Map<String, FireSummary> summaries = new LinkedHashMap<>();
        database.jdbc().query(grouped, rs -> {
            summaries.put(
                    rs.getString("job_name"),
                    new FireSummary(
                            rs.getLong("fires"),
                            0,
                            0,
                            0,
                            dialect.readInstant(rs, "fire_at"),
                            rs.getString("instance_name")));
        });
        if (!skipsByJob.isEmpty()) {
            summaries.putAll(toldApart(skipsByJob));
        }
        return summaries;
    }

    /** Reads the kept fires of the jobs with skips, and counts each as a run or as the skip covering it. */
    private Map<String, FireSummary> toldApart(Map<String, List<Skip>> skipsByJob) {
        JdbcDialect dialect = database.dialect();
        List<String> jobs = new ArrayList<>(skipsByJob.keySet());
        Map<String, Tally> tallies = new HashMap<>();
        database.jdbc()
                .query(
                        firesOf + String.join(", ", Collections.nCopies(jobs.size(), "?")) + ")",
                        ps -> dialect.bind(ps, jobs),
                        rs -> {
                            String job = rs.getString("job_name");
                            Instant fire = Objects.requireNonNull(dialect.readInstant(rs, "fire_at"));
                            tallies.computeIfAbsent(job, name -> new Tally())
                                    .add(fire, rs.getString("instance_name"), skipsByJob.get(job));
                        });
        Map<String, FireSummary> out = new HashMap<>();
        tallies.forEach((job, tally) -> out.put(job, tally.summary()));
        return out;
    }

    /** One job's fires counted one by one; confined to the reading thread. */
    private static final class Tally {
        private long ran;
        private long paused;
        private long stillRunning;
        private long stopping;
        private @Nullable Instant lastRunAt;
        private @Nullable String lastRunBy;

        void add(Instant fire, String instance, List<Skip> skips) {
            for (Skip skip : skips) {
                if (skip.covers(fire)) {
                    switch (skip.reason()) {
                        case "PAUSED" -> paused++;
                        case "STOPPING" -> stopping++;
                        default -> stillRunning++;
                    }
                    return;
                }
            }
            ran++;
            if (lastRunAt == null || fire.isAfter(lastRunAt)) {
                lastRunAt = fire;
                lastRunBy = instance;
            }
        }

        FireSummary summary() {
            return new FireSummary(ran, paused, stillRunning, stopping, lastRunAt, lastRunBy);
        }
    }
}
