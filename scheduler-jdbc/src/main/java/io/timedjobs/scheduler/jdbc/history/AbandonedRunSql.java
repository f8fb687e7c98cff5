package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;

/**
 * Immutable; any thread. The statements of {@link AbandonedRuns} for one database: the reads of the
 * fires table that find a run begun and never ended, and its record's insert. Values are bound; only
 * table names and the dialect's clock and row limit are formatted in.
 */
final class AbandonedRunSql {

    private final JdbcDialect dialect;
    private final String table;
    private final String fires;
    private final String jobs;
    private final String ownerIsDead;

    AbandonedRunSql(JdbcDialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.table = tables.runHistory();
        this.fires = tables.fires();
        this.jobs = tables.jobs();
        this.ownerIsDead = new InstanceSql(dialect, tables).isDead("f.instance_name");
    }

    /** A skip of the job covers the fire {@code f}: the fire was recorded to be skipped, not run. */
    private String skipCovers() {
        return "EXISTS (SELECT 1 FROM " + table + " h WHERE h.name = f.job_name AND h.kind = 'JOB'"
                + " AND h.skip_reason IS NOT NULL AND h.fire_at <= f.fire_at"
                + " AND COALESCE(h.fire_until, h.fire_at) >= f.fire_at)";
    }

    /**
     * The fire of a job that an instance other than the taker recorded last and that is dead now,
     * unless a skip covers it; with the database's time as {@code found_at}.
     */
    Statement lastOfDead() {
        return Statement.of(
                "SELECT f.job_name, f.fire_at, f.instance_name, f.recorded_at, " + dialect.now() + " AS found_at"
                        + " FROM " + fires + " f WHERE f.job_name = ? AND f.instance_name <> ? AND " + ownerIsDead
                        + " AND NOT " + skipCovers() + " ORDER BY f.recorded_at DESC, f.fire_at DESC"
                        + dialect.fetchFirst(),
                "job",
                "taker",
                "dead after",
                "limit");
    }

    /**
     * The fires an instance recorded of the jobs whose run lease it holds, but for those a skip
     * covers, latest recorded first per job; with the database's time as {@code found_at}.
     */
    Statement leftUnder() {
        return Statement.of(
                "SELECT f.job_name, f.fire_at, f.instance_name, f.recorded_at, " + dialect.now() + " AS found_at"
                        + " FROM " + jobs + " j JOIN " + fires + " f ON f.job_name = j.job_name"
                        + " AND f.instance_name = j.lease_owner WHERE j.lease_owner = ? AND NOT " + skipCovers()
                        + " ORDER BY f.job_name, f.recorded_at DESC, f.fire_at DESC",
                "instance");
    }

    /** Records an abandoned run, unless its fire has a record (its own end, written late, or another's). */
    Statement insert() {
        return Statement.of(
                "INSERT INTO " + table + " (kind, name, task_key, fire_at, instance_name, started_at, duration_ms,"
                        + " outcome, attempt, error, fire_until, catch_up, stack_trace) SELECT 'JOB', ?, NULL, ?, ?,"
                        + " ?, ?, '" + RunOutcome.ABANDONED.name() + "', 1, ?, ?, FALSE, NULL"
                        + " FROM (SELECT 1 AS one) one WHERE NOT EXISTS (SELECT 1 FROM " + table
                        + " WHERE name = ? AND fire_at = ?)",
                "job",
                "fire",
                "holder",
                "recorded at",
                "duration millis",
                "error",
                "fire until",
                "job",
                "fire");
    }

    /**
     * Deletes the abandoned record of a fire whose holder came back and wrote its own end: the run
     * was only frozen or cut off, and its real record stands alone.
     */
    Statement endedLate() {
        return Statement.of(
                "DELETE FROM " + table + " WHERE name = ? AND fire_at = ? AND instance_name = ? AND outcome = '"
                        + RunOutcome.ABANDONED.name() + "'",
                "job",
                "fire",
                "holder");
    }
}
