package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import org.jspecify.annotations.Nullable;

/**
 * Not API: used by the stores of this package, and extended by a database's own statements where
 * they differ (in that database's package under {@code database}). Immutable; any thread. The
 * portable statements of the jobs and fires tables, readable in one place.
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
 *
 * <p>Definitions (schema version 2): the row's {@code definition_key} names the one definition of the
 * job that fires; a fire is recorded, and a fixed-delay fire claimed, only under that key, so the
 * database refuses the fires of any other definition whatever its instances do. {@code user_paused}
 * is the pause; {@code paused} is what instances of schema version 1 obey (the pause, or true while
 * {@code fenced} keeps them from firing a definition the job no longer has). Paused below means
 * {@code COALESCE(user_paused, paused)}, for rows no version 2 instance has touched yet.
 */
public class JobSql {

    /** Paused, for rows that version 1 instances wrote and rows of version 2 alike. */
    protected static final String PAUSED = "COALESCE(user_paused, paused)";

    protected final String jobs;
    protected final String fires;
    protected final String now;
    protected final String nowPlus;
    protected final String ownerIsDead;
    private final String definitions;
    private final String carriers;
    private final String carrierIsDead;
    private final String version1Alive;
    private final String jobNameParameter;
    private final String instanceParameter;
    private final String instantParameter;

    /** Makes the statements of the jobs and fires tables of one database. */
    @FunctionalInterface
    public interface Factory {
        JobSql create(JdbcDialect dialect, TableNames tables, InstanceSql instances);
    }

    /** The portable statements; a database's own extend them. */
    protected JobSql(JdbcDialect dialect, TableNames tables, InstanceSql instances) {
        this.jobs = tables.jobs();
        this.fires = tables.fires();
        this.now = dialect.now();
        this.nowPlus = dialect.nowPlusMillis();
        this.ownerIsDead = instances.isDead("lease_owner");
        this.definitions = tables.jobDefinitions();
        this.carriers = tables.jobCarriers();
        this.carrierIsDead = instances.isDead("c.instance_name");
        this.version1Alive = instances.version1Alive();
        this.jobNameParameter = dialect.textParameter(300);
        this.instanceParameter = dialect.textParameter(200);
        this.instantParameter = dialect.instantParameter();
    }

    /** Returns the statements of {@code dialect}'s database: its own {@link Factory}'s, else these. */
    static JobSql of(JdbcDialect dialect, TableNames tables, InstanceSql instances) {
        return dialect.statements(Factory.class, JobSql::new).create(dialect, tables, instances);
    }

    /** Writes a job's row, created and defined now by an instance; insert-if-absent. */
    Statement register() {
        return Statement.of(
                "INSERT INTO " + jobs + " (job_name, kind, schedule, time_zone, anchor_at, next_fire_at, created_at,"
                        + " definition_key, defined_at, defined_by, user_paused, paused, fenced)"
                        + " VALUES (?, ?, ?, ?, ?, ?, " + now + ", ?, " + now + ", ?, FALSE, FALSE, FALSE)",
                "job",
                "kind",
                "schedule",
                "time zone",
                "anchor",
                "next fire",
                "definition key",
                "instance");
    }

    /** Records a definition of a job, first seen now; insert-if-absent. */
    Statement recordDefinition() {
        return Statement.of(
                "INSERT INTO " + definitions
                        + " (job_name, definition_key, definition, first_seen_at) VALUES (?, ?, ?, " + now + ")",
                "job",
                "definition key",
                "definition text");
    }

    /** A definition of a job: its text and when it was first seen. */
    Statement readDefinition() {
        return Statement.of(
                "SELECT definition, first_seen_at FROM " + definitions + " WHERE job_name = ? AND definition_key = ?",
                "job",
                "definition key");
    }

    /** Forgets which definition of a job an instance carries. */
    Statement dropCarrier() {
        return Statement.of("DELETE FROM " + carriers + " WHERE job_name = ? AND instance_name = ?", "job", "instance");
    }

    /** Notes the definition of a job an instance carries. */
    Statement carry() {
        return Statement.of(
                "INSERT INTO " + carriers + " (job_name, instance_name, definition_key) VALUES (?, ?, ?)",
                "job",
                "instance",
                "definition key");
    }

    /** How many live instances other than one carry a definition of a job. */
    Statement liveCarriers() {
        return Statement.of(
                "SELECT COUNT(*) FROM " + carriers + " c WHERE c.job_name = ? AND c.definition_key = ?"
                        + " AND c.instance_name <> ? AND NOT " + carrierIsDead,
                "job",
                "definition key",
                "instance",
                "dead after");
    }

    /**
     * Gives a row written by a version 1 instance the key of the definition it holds, keeping its
     * pause, when its kind, schedule and zone are the caller's.
     */
    Statement adopt() {
        return Statement.of(
                "UPDATE " + jobs + " SET definition_key = ?, defined_at = " + now + ", defined_by = ?,"
                        + " user_paused = paused WHERE job_name = ? AND definition_key IS NULL AND kind = ? AND schedule = ?"
                        + " AND COALESCE(time_zone, '') = ?",
                "definition key",
                "instance",
                "job",
                "kind",
                "schedule",
                "time zone or the empty string");
    }

    /**
     * Makes a definition the job's, from now, if the row still holds the definition the caller read
     * (compare-and-set on the key, the empty string for none): its schedule, a new anchor or next
     * fire, and the pause kept. While a version 1 instance is alive, it is fenced off: paused is
     * set for it, since it would go on firing the definition it has. {@code user_paused} is
     * assigned first and {@code paused} reads it: MariaDB and MySQL assign left to right, each
     * assignment seeing the ones before it, and in this order both readings give the same values as
     * the standard's (every assignment reads the old row).
     */
    Statement takeOver() {
        return Statement.of(
                "UPDATE " + jobs + " SET user_paused = " + PAUSED + ", paused = (" + PAUSED + " OR " + version1Alive
                        + "), kind = ?, schedule = ?, time_zone = ?, anchor_at = ?,"
                        + " next_fire_at = ?, definition_key = ?, defined_at = " + now + ", defined_by = ?,"
                        + " fenced = " + version1Alive
                        + " WHERE job_name = ? AND COALESCE(definition_key, '') = ?",
                "dead after",
                "kind",
                "schedule",
                "time zone",
                "anchor",
                "next fire",
                "definition key",
                "instance",
                "dead after",
                "job",
                "key read");
    }

    /**
     * Lifts the fence of a changed definition once no version 1 instance is alive: paused is the
     * pause again. One row changed means it was lifted.
     */
    Statement liftFence() {
        return Statement.of(
                "UPDATE " + jobs + " SET paused = COALESCE(user_paused, FALSE), fenced = FALSE WHERE job_name = ?"
                        + " AND fenced <> FALSE AND NOT " + version1Alive,
                "job",
                "dead after");
    }

    /** Fills in a fixed-rate job's anchor if its row lacks one. */
    Statement fillAnchor() {
        return Statement.of(
                "UPDATE " + jobs + " SET anchor_at = ? WHERE job_name = ? AND anchor_at IS NULL", "anchor", "job");
    }

    /** Fills in a fixed-delay job's next fire if its row lacks one and no run holds it. */
    Statement fillNextFire() {
        return Statement.of(
                "UPDATE " + jobs + " SET next_fire_at = ? WHERE job_name = ? AND next_fire_at IS NULL"
                        + " AND lease_owner IS NULL",
                "next fire",
                "job");
    }

    /** A job's row. */
    Statement read() {
        return Statement.of(
                "SELECT kind, schedule, time_zone, anchor_at, next_fire_at, lease_owner, lease_until, " + PAUSED
                        + " AS paused, definition_key, defined_at, defined_by, fenced, created_at FROM " + jobs
                        + " WHERE job_name = ?",
                "job");
    }

    /**
     * Pauses or resumes a job on every instance; version 1 instances see it too, unless fenced off
     * anyway. One row changed means it has a row.
     */
    Statement setPaused() {
        return Statement.of(
                "UPDATE " + jobs + " SET paused = CASE WHEN fenced <> FALSE THEN TRUE ELSE ? END, user_paused = ?"
                        + " WHERE job_name = ?",
                "paused",
                "paused",
                "job");
    }

    /** Whether a job is paused; no row if it has none. */
    Statement isPaused() {
        return Statement.of("SELECT " + PAUSED + " AS paused FROM " + jobs + " WHERE job_name = ?", "job");
    }

    /** The names of the paused jobs. */
    Statement pausedJobs() {
        return Statement.of("SELECT job_name FROM " + jobs + " WHERE " + PAUSED + " <> FALSE");
    }

    /**
     * Records a fire for an instance, unless it lies further than the horizon from the database's
     * time, the job is paused, or its row holds another definition; insert-if-absent, so that one
     * caller per fire ever gets a row.
     */
    Statement recordFire() {
        return Statement.of(
                "INSERT INTO " + fires + " (job_name, fire_at, instance_name, recorded_at)"
                        + " SELECT " + jobNameParameter + ", " + instantParameter + ", " + instanceParameter + ", "
                        + now
                        + " WHERE " + instantParameter + " > " + nowPlus
                        + " AND " + instantParameter + " < " + nowPlus
                        + " AND EXISTS (SELECT 1 FROM " + jobs + " WHERE job_name = ? AND definition_key = ? AND "
                        + PAUSED + " = FALSE)",
                "job",
                "fire",
                "instance",
                "fire",
                "minus horizon millis",
                "fire",
                "horizon millis",
                "job",
                "definition key");
    }

    /**
     * Claims a fire for a skip (the job paused, the instance stopping): its record, as {@link
     * #recordFire()} writes one but whatever the job's row says, and unless it lies further back
     * than the horizon from the database's time (no fire gets a record once past the horizon);
     * insert-if-absent, so that of a skip and a run of one fire only the first to write it stands.
     */
    Statement claimFire() {
        return Statement.of(
                "INSERT INTO " + fires + " (job_name, fire_at, instance_name, recorded_at)"
                        + " SELECT " + jobNameParameter + ", " + instantParameter + ", " + instanceParameter + ", "
                        + now
                        + " WHERE " + instantParameter + " > " + nowPlus,
                "job",
                "fire",
                "instance",
                "fire",
                "minus horizon millis");
    }

    /**
     * {@link #recordFire()} folded with the read of the job's row that tells a loser why it lost, in
     * one statement, announcing a recorded fire in the same statement when {@code announce}
     * (delivered at its commit; see {@link FireNotices}); null here, the portable answer: the store
     * then records and reads in statements of their own. A database that folds them returns one row:
     * whether this caller recorded the fire ({@code recorded}, 0 or 1), the job's {@code
     * definition_key} and {@code paused} as the insert saw them (null without a row), and {@code
     * announced} when {@code announce}.
     */
    public @Nullable Statement recordFireOrRead(boolean announce) {
        return null;
    }

    /**
     * {@link #recordFireOrRead(boolean)} with the run lease taken in the same statement when the fire
     * is recorded, on the terms of {@link #takeFreeLease()} and {@link #takeExpiredLease()} together;
     * null here, the portable answer. One row: {@code recorded}, {@code definition_key} and {@code
     * paused} as there, {@code leased} (0 or 1), and {@code stale_owner}: the lease's holder when, as
     * the statement began, its lease had ended or its holder was dead (a lease released meanwhile by a
     * run that just ended is then no take-over).
     */
    public @Nullable Statement recordFireAndLease(boolean announce) {
        return null;
    }

    /** Takes a run lease that is free or held under the taker's own name (a leftover of its crash). */
    Statement takeFreeLease() {
        return Statement.of(
                "UPDATE " + jobs + " SET lease_owner = ?, lease_until = " + nowPlus
                        + " WHERE job_name = ? AND (lease_owner IS NULL OR lease_owner = ?)",
                "instance",
                "max run millis",
                "job",
                "instance");
    }

    /** Takes over a run lease that expired or whose holder is dead. */
    Statement takeExpiredLease() {
        return Statement.of(
                "UPDATE " + jobs + " SET lease_owner = ?, lease_until = " + nowPlus
                        + " WHERE job_name = ? AND lease_owner IS NOT NULL AND (lease_until < " + now + " OR "
                        + ownerIsDead
                        + ")",
                "instance",
                "max run millis",
                "job",
                "dead after");
    }

    /** Releases a run lease its holder still holds. */
    Statement releaseLease() {
        return Statement.of(
                "UPDATE " + jobs + " SET lease_owner = NULL, lease_until = NULL WHERE job_name = ? AND lease_owner = ?",
                "job",
                "instance");
    }

    /**
     * Claims the fixed-delay fire the row holds if it is due (give or take an early margin), the
     * job is not paused, the row holds the caller's definition and no live run holds the lease:
     * clears the next fire and takes the lease.
     */
    Statement claimDelayedFire() {
        return Statement.of(
                "UPDATE " + jobs + " SET next_fire_at = NULL, lease_owner = ?, lease_until = " + nowPlus
                        + " WHERE job_name = ? AND next_fire_at = ? AND next_fire_at <= " + nowPlus
                        + " AND " + PAUSED + " = FALSE AND definition_key = ?"
                        + " AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < " + now + " OR " + ownerIsDead
                        + ")",
                "instance",
                "max run millis",
                "job",
                "next fire",
                "early millis",
                "definition key",
                "instance",
                "dead after");
    }

    /**
     * Ends an instance's fixed-delay run: the next fire is the database's time plus the delay. Only
     * while the run is still this instance's (it holds the lease and the next fire is still cleared
     * by its claim): a run taken over, ended as expired by another instance, or followed by another
     * run is left alone. A run of a definition the row no longer holds releases the lease and
     * leaves the next fire that definition's takeover set.
     */
    Statement completeDelayedFire() {
        return Statement.of(
                "UPDATE " + jobs + " SET next_fire_at = CASE WHEN definition_key = ? THEN " + nowPlus
                        + " ELSE next_fire_at END, lease_owner = NULL, lease_until = NULL WHERE job_name = ?"
                        + " AND lease_owner = ? AND (next_fire_at IS NULL OR definition_key <> ?)",
                "definition key",
                "delay millis",
                "job",
                "instance",
                "definition key");
    }

    /**
     * Ends a fixed-delay run whose holder is dead or ran past its lease (or is the caller itself),
     * as if it completed now.
     */
    Statement expireDelayedRun() {
        return Statement.of(
                "UPDATE " + jobs + " SET next_fire_at = " + nowPlus
                        + ", lease_owner = NULL, lease_until = NULL WHERE job_name = ?"
                        + " AND next_fire_at IS NULL AND lease_owner = ? AND (lease_owner = ? OR lease_until < " + now
                        + " OR "
                        + ownerIsDead + ")",
                "delay millis",
                "job",
                "owner",
                "instance",
                "dead after");
    }

    /**
     * Deletes fire records older than now plus a (negative) delay, but for the latest fire each run
     * lease's holder recorded of its job: the fire a dead holder began is found by whoever takes its
     * lease over (AbandonedRuns), and a job one instance runs back to back keeps one row, not all.
     * The holders' latest fires are a grouped derived table, which MariaDB materialises: it cannot
     * read the table it deletes from in a subquery otherwise.
     */
    Statement pruneFires() {
        return Statement.of(
                "DELETE FROM " + fires + " WHERE fire_at < " + nowPlus + " AND NOT EXISTS (SELECT 1 FROM"
                        + " (SELECT f.job_name, MAX(f.fire_at) AS last_fire_at FROM " + fires + " f JOIN " + jobs
                        + " held ON held.job_name = f.job_name AND held.lease_owner = f.instance_name"
                        + " GROUP BY f.job_name) kept WHERE kept.job_name = " + fires + ".job_name"
                        + " AND kept.last_fire_at = " + fires + ".fire_at)",
                "minus keep millis");
    }

    /**
     * Ends the run leases a previous process under an instance's name left when it died: expired
     * now, so that any instance may take them over (and a fixed-delay run ends) instead of waiting
     * for the maximum run time while the name lives on.
     */
    Statement expireLeftoverLeases() {
        return Statement.of(
                "UPDATE " + jobs + " SET lease_until = " + now + " WHERE lease_owner = ? AND lease_until > " + now,
                "instance");
    }
}
