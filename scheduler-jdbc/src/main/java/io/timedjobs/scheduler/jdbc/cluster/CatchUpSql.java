package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;

/**
 * Immutable; any thread. The statements of catch-up (schema version 4) on the jobs and fires
 * tables: a job's watermark, the fires it missed and the latest it recorded. Portable: every
 * database runs them as written.
 */
final class CatchUpSql {

    private final String jobs;
    private final String fires;
    private final String now;

    CatchUpSql(JdbcDialect dialect, TableNames tables) {
        this.jobs = tables.jobs();
        this.fires = tables.fires();
        this.now = dialect.now();
    }

    /** A job's catch-up watermark (schema version 4); null until it has one. */
    Statement readWatermark() {
        return Statement.of("SELECT caught_up_to FROM " + jobs + " WHERE job_name = ?", "job");
    }

    /**
     * Moves a job's catch-up watermark forward to a fire, compare-and-set: only if it lies before
     * that fire (or is not set), the job is not paused and its row holds the caller's definition.
     * One row changed means the fire is the caller's to record; the row stays locked until the
     * caller's transaction ends, so that concurrent claims of the job queue up behind it.
     */
    Statement advanceWatermark() {
        return Statement.of(
                "UPDATE " + jobs + " SET caught_up_to = ? WHERE job_name = ? AND definition_key = ? AND "
                        + JobSql.PAUSED + " = FALSE AND (caught_up_to IS NULL OR caught_up_to < ?)",
                "fire",
                "job",
                "definition key",
                "fire");
    }

    /**
     * Records a missed fire that a catch-up runs, whatever its age (the watermark, not the horizon,
     * keeps it from running twice); insert-if-absent.
     */
    Statement recordMissedFire() {
        return Statement.of(
                "INSERT INTO " + fires + " (job_name, fire_at, instance_name, recorded_at) VALUES (?, ?, ?, " + now
                        + ")",
                "job",
                "fire",
                "instance");
    }

    /**
     * Moves a job's catch-up watermark past the missed fires a catch-up skips on purpose,
     * compare-and-set on the value the caller read, so that the first instance to plan decides the
     * bounds for all.
     */
    Statement skipMissedFires() {
        return Statement.of(
                "UPDATE " + jobs
                        + " SET caught_up_to = ? WHERE job_name = ? AND definition_key = ? AND caught_up_to = ?",
                "new watermark",
                "job",
                "definition key",
                "watermark read");
    }

    /** As {@link #skipMissedFires()}, for a caller that read no watermark. */
    Statement skipMissedFiresFromNone() {
        return Statement.of(
                "UPDATE " + jobs + " SET caught_up_to = ? WHERE job_name = ? AND definition_key = ?"
                        + " AND caught_up_to IS NULL",
                "new watermark",
                "job",
                "definition key");
    }

    /** The fires recorded for a job from one instant to another, both included. */
    Statement recordedFires() {
        return Statement.of(
                "SELECT fire_at FROM " + fires + " WHERE job_name = ? AND fire_at >= ? AND fire_at <= ?",
                "job",
                "from",
                "to");
    }

    /** The latest fire recorded for a job, or null. */
    Statement lastRecordedFire() {
        return Statement.of("SELECT MAX(fire_at) AS fire_at FROM " + fires + " WHERE job_name = ?", "job");
    }
}
