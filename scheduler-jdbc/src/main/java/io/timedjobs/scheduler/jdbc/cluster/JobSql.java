package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;

/**
 * Immutable; any thread. The statements of the jobs and fires tables for one database, readable in
 * one place.
 *
 * <p>Every value reaches the database as a bind parameter; only table names and the {@link
 * JdbcDialect}'s clock expressions are formatted in. Durations are bound as milliseconds, instants
 * by {@link JdbcDialect#bind}. Every due check and lease expiry reads the database's own clock.
 *
 * <p>A job's row holds its definition, its next fire (fixed delay), its grid anchor (fixed rate),
 * its run lease ({@code lease_owner} until {@code lease_until}) and its {@code paused} flag; a fire
 * row records who ran (job, nominal instant). A lease counts as expired when its time has passed or
 * its owner is not alive by the instances table ({@link InstanceSql#isDead}, whose bind is the lease
 * in negative millis, written "dead after" below).
 */
final class JobSql {

    private final String jobs;
    private final String fires;
    private final String now;
    private final String nowPlus;
    private final String ownerIsDead;

    JobSql(JdbcDialect dialect, TableNames tables, InstanceSql instances) {
        this.jobs = tables.jobs();
        this.fires = tables.fires();
        this.now = dialect.now();
        this.nowPlus = dialect.nowPlusMillis();
        this.ownerIsDead = instances.isDead("lease_owner");
    }

    /**
     * Writes a job's row, created now; insert-if-absent. Binds: job, kind, schedule, time zone, anchor,
     * next fire.
     */
    String register() {
        return "INSERT INTO " + jobs + " (job_name, kind, schedule, time_zone, anchor_at, next_fire_at, created_at)"
                + " VALUES (?, ?, ?, ?, ?, ?, " + now + ")";
    }

    /** Fills in a fixed-rate job's anchor if its row lacks one. Binds: anchor, job. */
    String fillAnchor() {
        return "UPDATE " + jobs + " SET anchor_at = ? WHERE job_name = ? AND anchor_at IS NULL";
    }

    /** Fills in a fixed-delay job's next fire if its row lacks one and no run holds it. Binds: next fire, job. */
    String fillNextFire() {
        return "UPDATE " + jobs + " SET next_fire_at = ? WHERE job_name = ? AND next_fire_at IS NULL"
                + " AND lease_owner IS NULL";
    }

    /** A job's row. Binds: job. */
    String read() {
        return "SELECT kind, schedule, time_zone, anchor_at, next_fire_at, lease_owner, lease_until, paused FROM "
                + jobs + " WHERE job_name = ?";
    }

    /** Pauses or resumes a job on every instance. Binds: paused, job. One row changed means it has a row. */
    String setPaused() {
        return "UPDATE " + jobs + " SET paused = ? WHERE job_name = ?";
    }

    /** Whether a job is paused; no row if it has none. Binds: job. */
    String isPaused() {
        return "SELECT paused FROM " + jobs + " WHERE job_name = ?";
    }

    /** The names of the paused jobs. Binds: none. */
    String pausedJobs() {
        return "SELECT job_name FROM " + jobs + " WHERE paused";
    }

    /**
     * Records a fire for an instance, unless it lies further than the horizon from the database's
     * time or the job is paused; insert-if-absent, so that one caller per fire ever gets a row.
     * Binds: job, fire, instance, fire, minus horizon millis, fire, horizon millis, job.
     */
    String recordFire() {
        return "INSERT INTO " + fires + " (job_name, fire_at, instance_name, recorded_at)"
                + " SELECT CAST(? AS VARCHAR(300)), CAST(? AS TIMESTAMP WITH TIME ZONE),"
                + " CAST(? AS VARCHAR(200)), " + now
                + " WHERE CAST(? AS TIMESTAMP WITH TIME ZONE) > " + nowPlus
                + " AND CAST(? AS TIMESTAMP WITH TIME ZONE) < " + nowPlus
                + " AND NOT EXISTS (SELECT 1 FROM " + jobs + " WHERE job_name = ? AND paused)";
    }

    /**
     * Takes a run lease that is free or held under the taker's own name (a leftover of its crash).
     * Binds: instance, max run millis, job, instance.
     */
    String takeFreeLease() {
        return "UPDATE " + jobs + " SET lease_owner = ?, lease_until = " + nowPlus
                + " WHERE job_name = ? AND (lease_owner IS NULL OR lease_owner = ?)";
    }

    /**
     * Takes over a run lease that expired or whose holder is dead. Binds: instance, max run millis,
     * job, dead after.
     */
    String takeExpiredLease() {
        return "UPDATE " + jobs + " SET lease_owner = ?, lease_until = " + nowPlus
                + " WHERE job_name = ? AND lease_owner IS NOT NULL AND (lease_until < " + now + " OR " + ownerIsDead
                + ")";
    }

    /** Releases a run lease its holder still holds. Binds: job, instance. */
    String releaseLease() {
        return "UPDATE " + jobs + " SET lease_owner = NULL, lease_until = NULL WHERE job_name = ? AND lease_owner = ?";
    }

    /**
     * Claims the fixed-delay fire the row holds if it is due (give or take an early margin), the job
     * is not paused and no live run holds the lease: clears the next fire and takes the lease. Binds:
     * instance, max run millis, job, next fire, early millis, instance, dead after.
     */
    String claimDelayedFire() {
        return "UPDATE " + jobs + " SET next_fire_at = NULL, lease_owner = ?, lease_until = " + nowPlus
                + " WHERE job_name = ? AND next_fire_at = ? AND next_fire_at <= " + nowPlus
                + " AND NOT paused AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < " + now + " OR "
                + ownerIsDead + ")";
    }

    /**
     * Ends an instance's fixed-delay run: the next fire is the database's time plus the delay. Binds:
     * delay millis, job, instance.
     */
    String completeDelayedFire() {
        return "UPDATE " + jobs + " SET next_fire_at = " + nowPlus
                + ", lease_owner = NULL, lease_until = NULL WHERE job_name = ? AND lease_owner = ?";
    }

    /**
     * Ends a fixed-delay run whose holder is dead or ran past its lease (or is the caller itself), as
     * if it completed now. Binds: delay millis, job, owner, instance, dead after.
     */
    String expireDelayedRun() {
        return "UPDATE " + jobs + " SET next_fire_at = " + nowPlus
                + ", lease_owner = NULL, lease_until = NULL WHERE job_name = ?"
                + " AND next_fire_at IS NULL AND lease_owner = ? AND (lease_owner = ? OR lease_until < " + now + " OR "
                + ownerIsDead + ")";
    }

    /** Deletes fire records older than now plus a (negative) delay. Binds: minus keep millis. */
    String pruneFires() {
        return "DELETE FROM " + fires + " WHERE fire_at < " + nowPlus;
    }

    /**
     * Ends the run leases a previous process under an instance's name left when it died: expired
     * now, so that any instance may take them over (and a fixed-delay run ends) instead of waiting
     * for the maximum run time while the name lives on. Binds: instance.
     */
    String expireLeftoverLeases() {
        return "UPDATE " + jobs + " SET lease_until = " + now + " WHERE lease_owner = ? AND lease_until > " + now;
    }
}
