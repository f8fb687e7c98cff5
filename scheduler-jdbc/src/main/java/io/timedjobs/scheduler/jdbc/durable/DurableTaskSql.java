package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;

/**
 * Immutable; any thread. The statements of the durable tasks table for one database, readable in one
 * place.
 *
 * <p>Every value reaches the database as a bind parameter; only the table name and the {@link
 * JdbcDialect}'s clock expressions are formatted in. Durations are bound as milliseconds. Due checks read the
 * database's own clock, never the instance's.
 *
 * <p>States: {@code PENDING} waits in the database; {@code CLAIMED} sits in the in-memory queue of the
 * instance named in {@code claimed_by} until {@code lease_until}; {@code RUNNING} was started under
 * {@code claim_version}; {@code FAILED} ran out of attempts. A claim, a replacement and a reschedule
 * each bump {@code claim_version}, so a start or a completion under an older version changes nothing.
 */
final class DurableTaskSql {

    static final String COLUMNS =
            "id, handler, task_key, payload, schedule, fire_at, due_at, state, attempts, last_error, claimed_by, claim_version";

    private final JdbcDialect dialect;
    private final boolean postgres;
    private final String table;
    private final String now;

    DurableTaskSql(JdbcDialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.postgres = dialect == JdbcDialect.POSTGRESQL;
        this.table = tables.tasks();
        this.now = dialect.now();
    }

    /** The database's clock plus a bound number of milliseconds. */
    private String nowPlusMillis() {
        return dialect.nowPlusMillis();
    }

    /** Wraps a data-change statement so that it returns the changed rows. */
    private String returning(String dataChange, String columns) {
        return postgres
                ? dataChange + " RETURNING " + columns
                : "SELECT " + columns + " FROM FINAL TABLE (" + dataChange + ")";
    }

    /** A set of handler names bound as one array parameter. */
    private static String anyHandler() {
        return "handler = ANY(?)";
    }

    /**
     * Inserts a task or replaces the one with the same (handler, key): payload, schedule and due time
     * are replaced, attempts and error cleared, any claim dropped, the version bumped; the id survives.
     * Binds: handler, key, payload, schedule, fire_at, due_at. Returns: id.
     */
    String upsert() {
        if (postgres) {
            return "INSERT INTO " + table
                    + " (handler, task_key, payload, schedule, fire_at, due_at, state, attempts, claim_version,"
                    + " created_at) VALUES (?, ?, ?, ?, ?, ?, 'PENDING', 0, 0, " + now + ")"
                    + " ON CONFLICT (handler, task_key) DO UPDATE SET payload = EXCLUDED.payload,"
                    + " schedule = EXCLUDED.schedule, fire_at = EXCLUDED.fire_at, due_at = EXCLUDED.due_at, state = 'PENDING', attempts = 0,"
                    + " last_error = NULL, claimed_by = NULL, lease_until = NULL,"
                    + " claim_version = " + table + ".claim_version + 1 RETURNING id";
        }
        return "SELECT id FROM FINAL TABLE (MERGE INTO " + table + " t USING (VALUES (CAST(? AS VARCHAR(200)),"
                + " CAST(? AS VARCHAR(200)), CAST(? AS CHARACTER LARGE OBJECT), CAST(? AS VARCHAR(200)),"
                + " CAST(? AS TIMESTAMP WITH TIME ZONE), CAST(? AS TIMESTAMP WITH TIME ZONE)))"
                + " AS n(handler, task_key, payload, schedule, fire_at, due_at)"
                + " ON t.handler = n.handler AND t.task_key = n.task_key"
                + " WHEN MATCHED THEN UPDATE SET payload = n.payload, schedule = n.schedule, fire_at = n.fire_at,"
                + " due_at = n.due_at,"
                + " state = 'PENDING', attempts = 0, last_error = NULL, claimed_by = NULL, lease_until = NULL,"
                + " claim_version = t.claim_version + 1"
                + " WHEN NOT MATCHED THEN INSERT (handler, task_key, payload, schedule, fire_at, due_at, state,"
                + " attempts, claim_version, created_at) VALUES (n.handler, n.task_key, n.payload, n.schedule,"
                + " n.fire_at, n.due_at,"
                + " 'PENDING', 0, 0, " + now + "))";
    }

    /**
     * Moves a task to a new due time as a fresh PENDING task (also one that FAILED). Binds: fire_at,
     * due_at, handler, key.
     */
    String reschedule() {
        return "UPDATE " + table + " SET fire_at = ?, due_at = ?, state = 'PENDING', attempts = 0, last_error = NULL,"
                + " claimed_by = NULL, lease_until = NULL, claim_version = claim_version + 1"
                + " WHERE handler = ? AND task_key = ?";
    }

    /** Removes a task in any state. Binds: handler, key. */
    String cancel() {
        return "DELETE FROM " + table + " WHERE handler = ? AND task_key = ?";
    }

    /**
     * Claims PENDING tasks of the given handlers due within the lookahead, earliest first, skipping rows
     * another transaction holds. Binds: owner, lease millis, handlers, lookahead millis, limit.
     */
    String claimDue() {
        return claim(
                "state = 'PENDING' AND " + anyHandler() + " AND due_at <= " + nowPlusMillis() + " ORDER BY due_at");
    }

    /**
     * Claims one PENDING task by id if it is due within the lookahead. Binds: owner, lease millis, id,
     * lookahead millis, limit.
     */
    String claimOne() {
        return claim("state = 'PENDING' AND id = ? AND due_at <= " + nowPlusMillis());
    }

    /**
     * Takes over CLAIMED or RUNNING tasks of the given handlers whose lease has expired. Binds: owner,
     * lease millis, handlers, limit.
     */
    String claimExpired() {
        return claim("state IN ('CLAIMED', 'RUNNING') AND " + anyHandler() + " AND lease_until < " + now
                + " ORDER BY due_at");
    }

    private String claim(String condition) {
        String update = "UPDATE " + table + " SET state = 'CLAIMED', claimed_by = ?, claim_version = claim_version + 1,"
                + " lease_until = " + nowPlusMillis() + " WHERE id IN (SELECT id FROM " + table + " WHERE " + condition
                + " FETCH FIRST ? ROWS ONLY" + dialect.forUpdateSkipLocked() + ")";
        return returning(update, COLUMNS);
    }

    /**
     * The fenced start: CLAIMED by this owner under this version becomes RUNNING, counts an attempt and
     * renews the lease. Binds: lease millis, id, owner, version. One row changed means go.
     */
    String start() {
        return "UPDATE " + table + " SET state = 'RUNNING', attempts = attempts + 1, lease_until = " + nowPlusMillis()
                + " WHERE id = ? AND claimed_by = ? AND claim_version = ? AND state = 'CLAIMED'";
    }

    /**
     * The fenced completion of a one-off task. Binds: id, version. One row changed means accepted.
     *
     * <p>Completions and failures are fenced by the version alone, not the state: a task started while
     * the database was unreachable is still CLAIMED when its outcome is recorded.
     */
    String completeOnce() {
        return "DELETE FROM " + table + " WHERE id = ? AND claim_version = ?";
    }

    /**
     * The fenced completion of a recurring task: PENDING again at its next fire, keeping the error of
     * a fire that ran out of attempts. Binds: next fire (fire_at and due_at), error or null, id, version.
     */
    String completeRecurring() {
        return "UPDATE " + table + " SET state = 'PENDING', fire_at = ?, due_at = ?, attempts = 0, last_error = ?,"
                + " claimed_by = NULL, lease_until = NULL WHERE id = ? AND claim_version = ?";
    }

    /**
     * The fenced failure of an attempt: PENDING again after a backoff delay (fire_at kept), or FAILED.
     * Binds: state, error, delay millis, id, version.
     */
    String fail() {
        return "UPDATE " + table + " SET state = ?, last_error = ?, due_at = " + nowPlusMillis()
                + ", claimed_by = NULL, lease_until = NULL WHERE id = ? AND claim_version = ?";
    }

    /** Renews the leases of an owner's claims. Binds: lease millis, owner. */
    String heartbeat() {
        return "UPDATE " + table + " SET lease_until = " + nowPlusMillis()
                + " WHERE claimed_by = ? AND state IN ('CLAIMED', 'RUNNING')";
    }

    /** Gives back every claim of an owner that has not started. Binds: owner. */
    String releaseAll() {
        return "UPDATE " + table + " SET state = 'PENDING', claimed_by = NULL, lease_until = NULL"
                + " WHERE claimed_by = ? AND state = 'CLAIMED'";
    }

    /** Gives back one claim that has not started. Binds: id, owner, version. */
    String releaseOne() {
        return "UPDATE " + table + " SET state = 'PENDING', claimed_by = NULL, lease_until = NULL"
                + " WHERE id = ? AND claimed_by = ? AND claim_version = ? AND state = 'CLAIMED'";
    }

    /** Handlers of due PENDING tasks that are not in the given set. Binds: handlers. */
    String foreignHandlersDue() {
        return "SELECT DISTINCT handler FROM " + table + " WHERE state = 'PENDING' AND due_at <= " + now + " AND NOT ("
                + anyHandler() + ")";
    }

    /** The number of tasks not yet done (PENDING, CLAIMED or RUNNING). */
    String countWaiting() {
        return "SELECT COUNT(*) FROM " + table + " WHERE state <> 'FAILED'";
    }

    /** The start of a query; the caller appends conditions, each bound. */
    String select() {
        return "SELECT " + COLUMNS + " FROM " + table + " WHERE 1 = 1";
    }

    /** Limits a query's rows. Binds: limit. */
    String orderAndLimit() {
        return " ORDER BY due_at, id FETCH FIRST ? ROWS ONLY";
    }
}
