package io.timedjobs.scheduler.jdbc.database;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: used by {@link ClusterInstance} and, for the liveness condition, by the clustered jobs'
 * {@code JobSql}. Immutable; any thread. The statements of the instances table for one database,
 * readable in one place.
 *
 * <p>Every value reaches the database as a bind parameter; only the table name and the {@link
 * JdbcDialect}'s clock expressions are formatted in. Durations are bound as milliseconds. Times are
 * the database's own clock, never the instance's.
 */
public final class InstanceSql {

    private final String table;
    private final String now;
    private final String nowPlusMillis;
    private final @Nullable Statement heartbeatReturningNow;
    private final @Nullable String liveNamesColumn;

    /** The label of {@link #liveNamesColumn()}. */
    static final String LIVE_COLUMN = "live_instances";

    public InstanceSql(JdbcDialect dialect, TableNames tables) {
        this.table = tables.instances();
        this.now = dialect.now();
        this.nowPlusMillis = dialect.nowPlusMillis();
        String returning = dialect.returningNow(heartbeat().sql());
        this.heartbeatReturningNow = returning == null ? null : Statement.of(returning, "name");
        String live = dialect.arrayOf("SELECT instance_name FROM " + table + " WHERE heartbeat_at > " + nowPlusMillis
                + " ORDER BY instance_name");
        this.liveNamesColumn = live == null ? null : live + " AS " + LIVE_COLUMN;
    }

    /** Returns the instances table's name, for messages. */
    String table() {
        return table;
    }

    /**
     * Writes an instance's row, started and beating now, with the schema version its code knows;
     * insert-if-absent.
     */
    Statement register() {
        return Statement.of(
                "INSERT INTO " + table + " (instance_name, started_at, heartbeat_at, schema_version) VALUES (?, " + now
                        + ", " + now + ", " + TableNames.SCHEMA_VERSION + ")",
                "name");
    }

    /** Takes over the row left under a name (after a crash): started and beating now. */
    Statement restart() {
        return Statement.of(
                "UPDATE " + table + " SET started_at = " + now + ", heartbeat_at = " + now + ", leaving = FALSE"
                        + ", schema_version = " + TableNames.SCHEMA_VERSION + " WHERE instance_name = ?",
                "name");
    }

    /**
     * Takes over the row left under a name only if its heartbeat is still the one seen, so that a
     * holder that beat meanwhile keeps it.
     */
    Statement takeOver() {
        return Statement.of(
                "UPDATE " + table + " SET started_at = " + now + ", heartbeat_at = " + now + ", leaving = FALSE"
                        + ", schema_version = " + TableNames.SCHEMA_VERSION
                        + " WHERE instance_name = ? AND heartbeat_at = ?",
                "name",
                "heartbeat seen");
    }

    /** The start and heartbeat of one instance, no row if it has none. */
    Statement registration() {
        return Statement.of("SELECT started_at, heartbeat_at FROM " + table + " WHERE instance_name = ?", "name");
    }

    /** Whether an instance's heartbeat is younger than the lease (bound in negative millis): one row if so. */
    Statement isAlive() {
        return Statement.of(
                "SELECT 1 FROM " + table + " WHERE instance_name = ? AND heartbeat_at > " + nowPlusMillis,
                "name",
                "minus lease millis");
    }

    /** Renews an instance's heartbeat. One row changed means it still had a row. */
    Statement heartbeat() {
        return Statement.of("UPDATE " + table + " SET heartbeat_at = " + now + " WHERE instance_name = ?", "name");
    }

    /**
     * {@link #heartbeat()} returning the database's time, for a heartbeat that also measures the
     * clock; null where the dialect cannot (see {@link JdbcDialect#returningNow}). A row back means it
     * still had a row.
     */
    @Nullable
    Statement heartbeatReturningNow() {
        return heartbeatReturningNow;
    }

    /**
     * A select-list expression, named {@value #LIVE_COLUMN}: the names of the instances whose
     * heartbeat is younger than the lease (bound in negative millis), as an array; null where the
     * dialect has no arrays ({@link JdbcDialect#arrayOf}).
     */
    @Nullable
    String liveNamesColumn() {
        return liveNamesColumn;
    }

    /** Removes the rows of instances whose heartbeat is older than now plus a (negative) delay. */
    Statement pruneDead() {
        return Statement.of("DELETE FROM " + table + " WHERE heartbeat_at < " + nowPlusMillis, "minus delay millis");
    }

    /** Marks an instance as leaving: in a graceful stop, it begins no fire any more. */
    Statement markLeaving() {
        return Statement.of("UPDATE " + table + " SET leaving = TRUE WHERE instance_name = ?", "name");
    }

    /**
     * How many instances other than one are alive (as {@link #isAlive()}) and not leaving: those
     * that may still run a fire.
     */
    Statement othersStaying() {
        return Statement.of(
                "SELECT COUNT(*) FROM " + table + " WHERE instance_name <> ? AND leaving = FALSE AND heartbeat_at > "
                        + nowPlusMillis,
                "name",
                "minus lease millis");
    }

    /** Removes an instance's row. */
    Statement deregister() {
        return Statement.of("DELETE FROM " + table + " WHERE instance_name = ?", "name");
    }

    /** The heartbeat of one instance, no row if it has none. */
    Statement heartbeatOf() {
        return Statement.of("SELECT heartbeat_at FROM " + table + " WHERE instance_name = ?", "name");
    }

    /** Every instance row, by name. */
    Statement all() {
        return Statement.of("SELECT instance_name, started_at, heartbeat_at FROM " + table + " ORDER BY instance_name");
    }

    /**
     * How many instances of a schema version below a given one ({@code NULL} for version 1) are
     * alive. Binds: the version, the lease in negative millis, as {@link #isDead}.
     */
    public Statement olderAlive() {
        return Statement.of(
                "SELECT COUNT(*) FROM " + table + " WHERE (schema_version IS NULL OR schema_version < ?)"
                        + " AND heartbeat_at > " + nowPlusMillis,
                "version",
                "minus lease millis");
    }

    /**
     * A condition, true while an instance of schema version 1 is alive: one that knows nothing of
     * job definitions and obeys only the jobs' {@code paused} flag. Binds: the lease in negative
     * millis, as {@link #isDead}.
     */
    public String version1Alive() {
        return "EXISTS (SELECT 1 FROM " + table + " v1 WHERE v1.schema_version IS NULL AND v1.heartbeat_at > "
                + nowPlusMillis + ")";
    }

    /**
     * A condition, true when the instance named by {@code ownerColumn} is not alive: no row, or a
     * heartbeat older than the lease. Binds: the lease in negative millis ({@link
     * ClusterInstance#deadAfterMillisParameter()}). {@code ownerColumn} is SQL of our own, never user
     * input.
     */
    public String isDead(String ownerColumn) {
        Objects.requireNonNull(ownerColumn, "ownerColumn");
        return "NOT EXISTS (SELECT 1 FROM " + table + " alive WHERE alive.instance_name = " + ownerColumn
                + " AND alive.heartbeat_at > " + nowPlusMillis + ")";
    }
}
