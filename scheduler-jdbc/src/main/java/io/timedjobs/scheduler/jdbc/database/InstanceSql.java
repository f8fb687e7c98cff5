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
    private final @Nullable String heartbeatReturningNow;

    public InstanceSql(JdbcDialect dialect, TableNames tables) {
        this.table = tables.instances();
        this.now = dialect.now();
        this.nowPlusMillis = dialect.nowPlusMillis();
        this.heartbeatReturningNow = dialect.returningNow(heartbeat());
    }

    /** Returns the instances table's name, for messages. */
    String table() {
        return table;
    }

    /**
     * Writes an instance's row, started and beating now, with the schema version its code knows;
     * insert-if-absent. Binds: name.
     */
    String register() {
        return "INSERT INTO " + table + " (instance_name, started_at, heartbeat_at, schema_version) VALUES (?, " + now
                + ", " + now + ", " + TableNames.SCHEMA_VERSION + ")";
    }

    /** Takes over the row left under a name (after a crash): started and beating now. Binds: name. */
    String restart() {
        return "UPDATE " + table + " SET started_at = " + now + ", heartbeat_at = " + now + ", schema_version = "
                + TableNames.SCHEMA_VERSION + " WHERE instance_name = ?";
    }

    /**
     * Takes over the row left under a name only if its heartbeat is still the one seen, so that a
     * holder that beat meanwhile keeps it. Binds: name, the heartbeat seen.
     */
    String takeOver() {
        return "UPDATE " + table + " SET started_at = " + now + ", heartbeat_at = " + now + ", schema_version = "
                + TableNames.SCHEMA_VERSION + " WHERE instance_name = ? AND heartbeat_at = ?";
    }

    /** The start and heartbeat of one instance, no row if it has none. Binds: name. */
    String registration() {
        return "SELECT started_at, heartbeat_at FROM " + table + " WHERE instance_name = ?";
    }

    /**
     * Whether an instance's heartbeat is younger than the lease: one row if so. Binds: name, the
     * lease in negative millis.
     */
    String isAlive() {
        return "SELECT 1 FROM " + table + " WHERE instance_name = ? AND heartbeat_at > " + nowPlusMillis;
    }

    /** Renews an instance's heartbeat. Binds: name. One row changed means it still had a row. */
    String heartbeat() {
        return "UPDATE " + table + " SET heartbeat_at = " + now + " WHERE instance_name = ?";
    }

    /**
     * {@link #heartbeat()} returning the database's time, for a heartbeat that also measures the
     * clock; null where the dialect cannot (see {@link JdbcDialect#returningNow}). Binds: name. A
     * row back means it still had a row.
     */
    @Nullable
    String heartbeatReturningNow() {
        return heartbeatReturningNow;
    }

    /** Removes the rows of instances whose heartbeat is older than now plus a (negative) delay. Binds: millis. */
    String pruneDead() {
        return "DELETE FROM " + table + " WHERE heartbeat_at < " + nowPlusMillis;
    }

    /** Removes an instance's row. Binds: name. */
    String deregister() {
        return "DELETE FROM " + table + " WHERE instance_name = ?";
    }

    /** The heartbeat of one instance, no row if it has none. Binds: name. */
    String heartbeatOf() {
        return "SELECT heartbeat_at FROM " + table + " WHERE instance_name = ?";
    }

    /** Every instance row, by name. Binds: none. */
    String all() {
        return "SELECT instance_name, started_at, heartbeat_at FROM " + table + " ORDER BY instance_name";
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
