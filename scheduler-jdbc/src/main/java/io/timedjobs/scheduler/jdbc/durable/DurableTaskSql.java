package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.RowChange;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.database.Upsert;
import io.timedjobs.scheduler.jdbc.database.Upsert.Column;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Not API: used by the store of this package, and extended by a database's own statements where
 * they differ (in that database's package under {@code database}). Immutable; any thread. The
 * portable statements of the durable tasks table, readable in one place.
 *
 * <p>Every value reaches the database as a bind parameter; only the table name and the {@link
 * JdbcDialect}'s clock expressions are formatted in. Durations are bound as milliseconds, a set of
 * handler names as one {@code String[]}. Due checks read the database's own clock, never the
 * instance's. The statements that change rows and return them ({@link RowChange}, {@link Upsert})
 * are written here in parts and run by the dialect, which puts them together its own way.
 *
 * <p>States: {@code PENDING} waits in the database; {@code CLAIMED} sits in the in-memory queue of the
 * instance named in {@code claimed_by} until {@code lease_until}; {@code RUNNING} was started under
 * {@code claim_version}; {@code FAILED} ran out of attempts. A claim, a replacement and a reschedule
 * each bump {@code claim_version}, so a start or a completion under an older version changes nothing.
 */
public class DurableTaskSql {

    static final String COLUMNS =
            "id, handler, task_key, payload, schedule, fire_at, due_at, state, attempts, last_error, claimed_by, claim_version,"
                    + " trace_parent";

    /** What a claim sets: the claimer, a new version and the lease. Binds: owner, lease millis. */
    private final String claimSet;

    private final JdbcDialect dialect;
    protected final String table;
    private final String now;
    protected final String nowPlusMillis;

    /**
     * The due bound of claims: the database's time fixed for the statement, so that the (state,
     * due_at) index ends the scan at the first task not due (see {@link JdbcDialect#statementNow()}).
     */
    private final String dueBy;

    private final String dueByPlusMillis;

    /** Makes the statements of the durable tasks table of one database. */
    @FunctionalInterface
    public interface Factory {
        DurableTaskSql create(JdbcDialect dialect, TableNames tables);
    }

    /** The portable statements; a database's own extend them. */
    protected DurableTaskSql(JdbcDialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.table = tables.tasks();
        this.now = dialect.now();
        this.nowPlusMillis = dialect.nowPlusMillis();
        this.dueBy = dialect.statementNow();
        this.dueByPlusMillis = dialect.statementNowPlusMillis();
        this.claimSet =
                "state = 'CLAIMED', claimed_by = ?, claim_version = claim_version + 1, lease_until = " + nowPlusMillis;
    }

    /**
     * Inserts a task or replaces the one with the same (handler, key): payload, schedule and due time
     * are replaced, attempts and error cleared, any claim dropped, the version bumped; the id survives.
     * Binds: handler, key, payload, schedule, fire_at, due_at, trace_parent. Returns: id.
     */
    Upsert upsert() {
        return new Upsert(
                table,
                List.of("handler", "task_key"),
                List.of(
                        new Column("handler", "VARCHAR(200)"),
                        // wider than the column: H2 counts a key's UTF-16 units, and a cast to a
                        // narrower type would cut the key silently where the column refuses it
                        new Column("task_key", "VARCHAR(400)"),
                        new Column("payload", "CHARACTER LARGE OBJECT"),
                        new Column("schedule", "VARCHAR(200)"),
                        new Column("fire_at", "TIMESTAMP WITH TIME ZONE"),
                        new Column("due_at", "TIMESTAMP WITH TIME ZONE"),
                        new Column("trace_parent", "VARCHAR(55)")),
                List.of(
                        new Column("state", "'PENDING'"),
                        new Column("attempts", "0"),
                        new Column("claim_version", "0"),
                        new Column("created_at", now)),
                List.of(
                        new Column("state", "'PENDING'"),
                        new Column("attempts", "0"),
                        new Column("last_error", "NULL"),
                        new Column("claimed_by", "NULL"),
                        new Column("lease_until", "NULL"),
                        new Column("claim_version", table + ".claim_version + 1")),
                "id");
    }

    /**
     * Moves a task to a new due time as a fresh PENDING task (also one that FAILED). Binds: set:
     * fire_at, due_at; condition: handler, key. Returns: id.
     */
    RowChange reschedule() {
        return new RowChange(
                table,
                "fire_at = ?, due_at = ?, state = 'PENDING', attempts = 0, last_error = NULL, claimed_by = NULL,"
                        + " lease_until = NULL, claim_version = claim_version + 1",
                "handler = ? AND task_key = ?",
                "",
                "id");
    }

    /** Removes a task in any state. */
    Statement cancel() {
        return Statement.of("DELETE FROM " + table + " WHERE handler = ? AND task_key = ?", "handler", "key");
    }

    /**
     * Claims PENDING tasks of the given handlers due within the lookahead, earliest first, skipping rows
     * another transaction holds. Binds: set: owner, lease millis; condition: handlers, lookahead millis;
     * then the limit.
     */
    RowChange claimDue(int handlerCount) {
        return claim(
                "state = 'PENDING' AND "
                        + dialect.anyOf("handler", handlerCount).sql() + " AND due_at <= " + dueByPlusMillis,
                " ORDER BY due_at");
    }

    /**
     * Claims one PENDING task by id if it is due within the lookahead. Binds: set: owner, lease millis;
     * condition: id, lookahead millis; then the limit.
     */
    RowChange claimOne() {
        return claim("state = 'PENDING' AND id = ? AND due_at <= " + dueByPlusMillis, "");
    }

    /**
     * Takes over CLAIMED or RUNNING tasks of the given handlers whose lease has expired. Binds: set:
     * owner, lease millis; condition: handlers; then the limit.
     */
    RowChange claimExpired(int handlerCount) {
        return claim(
                "state IN ('CLAIMED', 'RUNNING') AND "
                        + dialect.anyOf("handler", handlerCount).sql() + " AND lease_until < " + now,
                " ORDER BY due_at");
    }

    private RowChange claim(String condition, String order) {
        return new RowChange(table, claimSet, condition, order, COLUMNS);
    }

    /** Returns the statements of {@code dialect}'s database: its own {@link Factory}'s, else these. */
    static DurableTaskSql of(JdbcDialect dialect, TableNames tables) {
        return dialect.statements(Factory.class, DurableTaskSql::new).create(dialect, tables);
    }

    /**
     * The fenced start: CLAIMED by this owner under this version becomes RUNNING, counts an attempt
     * and renews the lease. One row changed means go.
     */
    Statement start() {
        return Statement.of(
                "UPDATE " + table + " SET state = 'RUNNING', attempts = attempts + 1, lease_until = " + nowPlusMillis
                        + " WHERE id = ? AND claimed_by = ? AND claim_version = ? AND state = 'CLAIMED'",
                "lease millis",
                "id",
                "owner",
                "version");
    }

    /**
     * {@link #start()} for a group of tasks in one statement, returning the id and claim version of
     * each task started (the ids distinct), bound as {@code lease millis}, then the ids, versions and
     * ids again (each a {@code long[]}, versions in the order of the ids), then {@code owner}; null
     * here, the portable answer: the group's rows locked, then those fit started by id, in one
     * transaction (see {@link LockedGroupSql}).
     */
    public @Nullable Statement startGroup() {
        return null;
    }

    /**
     * {@link #completeOnce()} for a group of tasks in one statement, returning the id and claim
     * version of each task completed (the ids distinct), bound as the ids, versions and ids again;
     * null here, the portable answer: the group's rows locked, then those fit deleted by id, in one
     * transaction (see {@link LockedGroupSql}).
     */
    public @Nullable Statement completeOnceGroup() {
        return null;
    }

    /**
     * The fenced completion of a one-off task. One row changed means accepted.   * <p>Completions
     * and failures are fenced by the version alone, not the state: a task started while the
     * database was unreachable is still CLAIMED when its outcome is recorded.
     */
    Statement completeOnce() {
        return Statement.of("DELETE FROM " + table + " WHERE id = ? AND claim_version = ?", "id", "version");
    }

    /**
     * The fenced completion of a recurring task: PENDING again at its next fire, keeping the error
     * of a fire that ran out of attempts. The trace context of the call that scheduled it goes:
     * only its first fire continues that trace.
     */
    Statement completeRecurring() {
        return Statement.of(
                "UPDATE " + table + " SET state = 'PENDING', fire_at = ?, due_at = ?, attempts = 0, last_error = ?,"
                        + " claimed_by = NULL, lease_until = NULL, trace_parent = NULL WHERE id = ? AND claim_version = ?",
                "next fire",
                "next fire",
                "error or null",
                "id",
                "version");
    }

    /** The fenced failure of an attempt: PENDING again after a backoff delay (fire_at kept), or FAILED. */
    Statement fail() {
        return Statement.of(
                "UPDATE " + table + " SET state = ?, last_error = ?, due_at = " + nowPlusMillis
                        + ", claimed_by = NULL, lease_until = NULL WHERE id = ? AND claim_version = ?",
                "state",
                "error",
                "delay millis",
                "id",
                "version");
    }

    /**
     * Renews the lease of one started task if it is still this owner's under this version: RUNNING,
     * or still CLAIMED when its start could not be written (it then runs under the held lease, as
     * the outcome's fence allows). One row changed means held.
     */
    Statement renewStarted() {
        return Statement.of(
                "UPDATE " + table + " SET lease_until = " + nowPlusMillis
                        + " WHERE id = ? AND claimed_by = ? AND claim_version = ? AND state IN ('CLAIMED', 'RUNNING')",
                "lease millis",
                "id",
                "owner",
                "version");
    }

    /**
     * Renews the leases of an owner's claims that end within a bound ({@link
     * io.timedjobs.scheduler.jdbc.database.LeaseRule#renewalWindow}); those claimed, started or
     * renewed since are left as they are, and so are rows another transaction holds (a group being
     * started, which renews them itself, or completed): the next renewal takes them, before their
     * lease ends.
     */
    Statement renewLeases() {
        return Statement.of(
                "UPDATE " + table + " SET lease_until = " + nowPlusMillis + " WHERE "
                        + dialect.unlockedRows(
                                table,
                                "claimed_by = ? AND state IN ('CLAIMED', 'RUNNING') AND lease_until < "
                                        + nowPlusMillis),
                "lease millis",
                "owner",
                "bound millis");
    }

    /**
     * Gives back every claim of an owner that has not started, but those of {@code kept} tasks (ids),
     * under a new version, so that a late start or outcome of the old claim is refused. Binds: owner,
     * then the kept ids.
     */
    Statement releaseAll(int kept) {
        String sql = "UPDATE " + table + " SET state = 'PENDING', claimed_by = NULL, lease_until = NULL,"
                + " claim_version = claim_version + 1 WHERE claimed_by = ? AND state = 'CLAIMED'";
        List<String> binds = new ArrayList<>(List.of("owner"));
        binds.addAll(Collections.nCopies(kept, "kept id"));
        return new Statement(
                kept == 0 ? sql : sql + " AND id NOT IN (" + String.join(", ", Collections.nCopies(kept, "?")) + ")",
                binds);
    }

    /**
     * Hands back every claim, started or not, that a previous process under an owner's name left
     * when it died: PENDING again under a new version, so that a late start or outcome of the old
     * claim is refused and any instance claims the task anew. A started one keeps its counted
     * attempt.
     */
    Statement releaseLeftovers() {
        return Statement.of(
                "UPDATE " + table + " SET state = 'PENDING', claimed_by = NULL, lease_until = NULL,"
                        + " claim_version = claim_version + 1 WHERE claimed_by = ? AND state IN ('CLAIMED', 'RUNNING')",
                "owner");
    }

    /** Gives back one claim that has not started. */
    Statement releaseOne() {
        return Statement.of(
                "UPDATE " + table + " SET state = 'PENDING', claimed_by = NULL, lease_until = NULL"
                        + " WHERE id = ? AND claimed_by = ? AND claim_version = ? AND state = 'CLAIMED'",
                "id",
                "owner",
                "version");
    }

    /** Handlers of due PENDING tasks that are not in the given set. */
    Statement foreignHandlersDue(int handlerCount) {
        Statement handlers = dialect.anyOf("handler", handlerCount);
        return new Statement(
                "SELECT DISTINCT handler FROM " + table + " WHERE state = 'PENDING' AND due_at <= " + dueBy
                        + " AND NOT (" + handlers.sql() + ")",
                handlers.binds());
    }

    /**
     * What an idle instance needs to know to sleep: the earliest due time of the given handlers'
     * PENDING tasks (null if none), whether any of their tasks is claimed or running (1 or 0), and the
     * database's time. Reads the {@code (state, due_at)} index twice, each time to its first match.
     * Bound as the handlers twice, then 1.
     */
    Statement nextEvent(int handlerCount) {
        Statement columns = nextEventColumns(handlerCount);
        return new Statement("SELECT " + columns.sql() + ", " + now, columns.binds());
    }

    /** The first two columns of {@link #nextEvent}, for a query that reads the time itself. */
    Statement nextEventColumns(int handlerCount) {
        Statement mine = dialect.anyOf("handler", handlerCount);
        List<String> binds = new ArrayList<>(mine.binds());
        binds.addAll(mine.binds());
        binds.add("limit");
        return new Statement(
                "(SELECT MIN(due_at) FROM " + table + " WHERE state = 'PENDING' AND " + mine.sql() + "),"
                        + " (SELECT COUNT(*) FROM (SELECT 1 AS one FROM " + table
                        + " WHERE state IN ('CLAIMED', 'RUNNING') AND " + mine.sql() + dialect.fetchFirst() + ") held)",
                binds);
    }

    /**
     * The number of tasks not yet done (PENDING, CLAIMED or RUNNING), counted up to a bound, so
     * that its cost does not grow with the backlog.
     */
    Statement countWaiting() {
        return Statement.of(
                "SELECT COUNT(*) FROM (SELECT 1 AS one FROM " + table
                        + " WHERE state IN ('PENDING', 'CLAIMED', 'RUNNING')" + dialect.fetchFirst() + ") waiting",
                "the bound");
    }

    /**
     * The number of tasks in each state, as columns state and n, each counted up to a bound as in
     * {@link #countWaiting()}, bound once per state, in the order of {@link DurableTaskState}.
     */
    Statement countByState() {
        StringBuilder text = new StringBuilder();
        for (DurableTaskState state : DurableTaskState.values()) {
            if (text.length() > 0) {
                text.append(" UNION ALL ");
            }
            text.append("SELECT '")
                    .append(state.name())
                    .append("' AS state, COUNT(*) AS n FROM (SELECT 1 AS one FROM ")
                    .append(table)
                    .append(" WHERE state = '")
                    .append(state.name())
                    .append("'")
                    .append(dialect.fetchFirst())
                    .append(") counted_")
                    .append(state.ordinal());
        }
        return new Statement(text.toString(), Collections.nCopies(DurableTaskState.values().length, "bound"));
    }

    /**
     * The tasks that meet a query's conditions, earliest due first; bound by {@link #findBinds}: the
     * values of the conditions the query sets, then its limit.
     */
    Statement find(DurableTaskQuery query) {
        StringBuilder text = new StringBuilder("SELECT " + COLUMNS + " FROM " + table + " WHERE 1 = 1");
        List<String> binds = new ArrayList<>();
        condition(text, binds, query.handler(), " AND handler = ?", "handler");
        condition(text, binds, query.key(), " AND task_key = ?", "key");
        condition(text, binds, query.state(), " AND state = ?", "state");
        condition(text, binds, query.dueBefore(), " AND due_at < ?", "due before");
        condition(text, binds, query.dueFrom(), " AND due_at >= ?", "due from");
        binds.add("limit");
        return new Statement(
                text.append(" ORDER BY due_at, id").append(dialect.fetchFirst()).toString(), binds);
    }

    /** Adds a condition of {@link #find} and its bind where the query sets its value. */
    private static void condition(
            StringBuilder text, List<String> binds, @Nullable Object value, String sql, String bind) {
        if (value != null) {
            text.append(sql);
            binds.add(bind);
        }
    }

    /** Returns the binds of {@link #find}, in the order of its conditions. */
    static List<Object> findBinds(DurableTaskQuery query) {
        List<Object> binds = new ArrayList<>();
        if (query.handler() != null) {
            binds.add(query.handler());
        }
        if (query.key() != null) {
            binds.add(query.key());
        }
        if (query.state() != null) {
            binds.add(query.state().name());
        }
        if (query.dueBefore() != null) {
            binds.add(query.dueBefore());
        }
        if (query.dueFrom() != null) {
            binds.add(query.dueFrom());
        }
        binds.add(query.limit());
        return binds;
    }
}
