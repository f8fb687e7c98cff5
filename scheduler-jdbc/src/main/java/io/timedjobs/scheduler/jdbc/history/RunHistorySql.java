package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Immutable; any thread. The statements of the run history table for one database, readable in one
 * place. Values are bound; only the table name and the dialect's clock, row limits and batched
 * delete are formatted in. Plain SQL but for those: no arrays (a set of outcomes is one parameter per
 * value), no rows returned from a change (where a dialect folds a record into its run's end, {@link
 * JdbcDialect#changeWithInsert} does).
 */
final class RunHistorySql {

    static final String COLUMNS = "id, kind, name, task_key, fire_at, instance_name, started_at, duration_ms,"
            + " outcome, attempt, error, fire_until, fires, skip_reason, catch_up, stack_trace";

    /** {@link #COLUMNS} but the stack trace, read as null: what a page shows (up to 8,000 characters a row less). */
    static final String PAGE_COLUMNS = COLUMNS.replace("stack_trace", "NULL AS stack_trace");

    /** The columns a run's record writes, in the order of {@link #RECORD_BINDS}. */
    private static final String RUN_COLUMNS = "(kind, name, task_key, fire_at, instance_name, started_at,"
            + " duration_ms, outcome, attempt, error, fire_until, catch_up, stack_trace)";

    /** How many of a job's latest records a skip reads to find the one it follows or overlaps. */
    static final int LATEST_READ = 8;

    /** The binds of one record, in the order of {@link #insert()}. */
    private static final String[] RECORD_BINDS = {
        "kind",
        "name",
        "task key",
        "fire",
        "instance",
        "minus duration millis",
        "duration millis",
        "outcome",
        "attempt",
        "error",
        "fire until",
        "catch up",
        "stack trace"
    };

    private final String table;
    private final String startedBefore;
    private final JdbcDialect dialect;
    private final String nowMinusDuration;
    private final String jobs;

    RunHistorySql(JdbcDialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.jobs = tables.jobs();
        this.table = tables.runHistory();
        this.nowMinusDuration = dialect.nowPlusMillis();
        this.startedBefore = "started_at < " + dialect.nowPlusMillis();
    }

    /** Records a run that ended now: its start is the database's time less its duration. */
    Statement insert() {
        return Statement.of(
                "INSERT INTO " + table + " " + RUN_COLUMNS + " VALUES (?, ?, ?, ?, ?, " + nowMinusDuration
                        + ", ?, ?, ?, ?, ?, ?, ?)",
                RECORD_BINDS);
    }

    /**
     * {@link #insert()} of {@code rows} records in one statement (one {@code VALUES} row each): a
     * group of completions writes its records at the cost of one statement; the binds of {@link
     * #insert()}, record after record.
     */
    Statement insertRows(int rows) {
        String row = "(?, ?, ?, ?, ?, " + nowMinusDuration + ", ?, ?, ?, ?, ?, ?, ?)";
        StringBuilder insert = new StringBuilder("INSERT INTO " + table + " " + RUN_COLUMNS + " VALUES ");
        List<String> binds = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            insert.append(i == 0 ? "" : ", ").append(row);
            binds.addAll(List.of(RECORD_BINDS));
        }
        return new Statement(insert.toString(), binds);
    }

    /**
     * As {@link #insert()}, as a SELECT, for {@link JdbcDialect#changeWithInsert}: one record per row
     * of {@code changed} when {@code perChangedRow}, else one record. Each bind is cast to its
     * column's type: a parameter in a select list has no type of its own.
     */
    Statement insertSelect(boolean perChangedRow) {
        String sql = "INSERT INTO " + table + " " + RUN_COLUMNS + " SELECT CAST(? AS VARCHAR(8)),"
                + " CAST(? AS VARCHAR(300)), CAST(? AS VARCHAR(200)), CAST(? AS TIMESTAMP WITH TIME ZONE),"
                + " CAST(? AS VARCHAR(200)), " + nowMinusDuration + ", CAST(? AS BIGINT), CAST(? AS VARCHAR(16)),"
                + " CAST(? AS INTEGER), CAST(? AS VARCHAR(500)), CAST(? AS TIMESTAMP WITH TIME ZONE),"
                + " CAST(? AS BOOLEAN), CAST(? AS VARCHAR(" + RunHistory.STACK_TRACE_LENGTH + "))"
                + (perChangedRow ? " FROM changed" : "");
        return Statement.of(sql, RECORD_BINDS);
    }

    /** One record by its id, whole. */
    Statement byId() {
        return Statement.of("SELECT " + COLUMNS + " FROM " + table + " WHERE id = ?", "id");
    }

    /**
     * The records that meet a query's conditions, latest start first, or latest written first when
     * {@code byId} (the order of a page, whose records carry no stack trace); bound by {@link
     * #findBinds}: the values of the conditions the query sets, then its limit.
     */
    Statement find(RunHistoryQuery query, boolean byId) {
        List<String> binds = new ArrayList<>();
        StringBuilder text =
                new StringBuilder("SELECT " + (byId ? PAGE_COLUMNS : COLUMNS) + " FROM " + table + " WHERE 1 = 1");
        if (query.job() != null) {
            text.append(" AND name = ? AND kind = 'JOB'");
            binds.add("job");
        }
        if (query.task() != null) {
            text.append(" AND name = ? AND kind = 'TASK'");
            binds.add("task");
        }
        if (query.instance() != null) {
            text.append(" AND instance_name = ?");
            binds.add("instance");
        }
        if (!query.outcomes().isEmpty() || !query.skipReasons().isEmpty()) {
            List<String> either = new ArrayList<>();
            if (!query.outcomes().isEmpty()) {
                either.add("outcome IN ("
                        + String.join(", ", Collections.nCopies(query.outcomes().size(), "?")) + ")");
                query.outcomes().forEach(outcome -> binds.add("outcome"));
            }
            if (!query.skipReasons().isEmpty()) {
                either.add("skip_reason IN ("
                        + String.join(
                                ", ", Collections.nCopies(query.skipReasons().size(), "?")) + ")");
                query.skipReasons().forEach(reason -> binds.add("skip reason"));
            }
            text.append(" AND (").append(String.join(" OR ", either)).append(")");
        }
        if (query.from() != null) {
            text.append(" AND started_at >= ?");
            binds.add("from");
        }
        if (query.to() != null) {
            text.append(" AND started_at < ?");
            binds.add("to");
        }
        if (query.firesFrom() != null) {
            text.append(" AND COALESCE(fire_until, fire_at) >= ?");
            binds.add("fires from");
        }
        if (query.firesTo() != null) {
            text.append(" AND fire_at < ?");
            binds.add("fires to");
        }
        if (query.cursor() != null) {
            text.append(" AND id < ?");
            binds.add("cursor");
        }
        binds.add("limit");
        text.append(byId ? " ORDER BY id DESC" : " ORDER BY started_at DESC, id DESC")
                .append(dialect.fetchFirst());
        return new Statement(text.toString(), binds);
    }

    /** Returns the binds of {@link #find}, in the order of its conditions. */
    static List<Object> findBinds(RunHistoryQuery query) {
        List<Object> binds = new ArrayList<>();
        if (query.job() != null) {
            binds.add(query.job());
        }
        if (query.task() != null) {
            binds.add(query.task());
        }
        if (query.instance() != null) {
            binds.add(query.instance());
        }
        query.outcomes().stream().sorted().forEach(outcome -> binds.add(outcome.name()));
        query.skipReasons().stream().sorted().forEach(reason -> binds.add(reason.name()));
        if (query.from() != null) {
            binds.add(query.from());
        }
        if (query.to() != null) {
            binds.add(query.to());
        }
        if (query.firesFrom() != null) {
            binds.add(query.firesFrom());
        }
        if (query.firesTo() != null) {
            binds.add(query.firesTo());
        }
        if (query.cursor() != null) {
            binds.add(query.cursor());
        }
        binds.add(query.limit());
        return binds;
    }

    /**
     * A job's records whose first fire is at or before an instant, latest fire first: the one
     * covering it, and those before. On the (name, fire_at) index.
     */
    Statement atOrBefore() {
        return Statement.of(
                "SELECT " + COLUMNS + " FROM " + table + " WHERE name = ? AND kind = 'JOB' AND fire_at <= ?"
                        + " ORDER BY fire_at DESC, id DESC" + dialect.fetchFirst(),
                "job",
                "at",
                "limit");
    }

    /** A job's records whose first fire is after an instant, earliest first. */
    Statement after() {
        return Statement.of(
                "SELECT " + COLUMNS + " FROM " + table + " WHERE name = ? AND kind = 'JOB' AND fire_at > ?"
                        + " ORDER BY fire_at, id" + dialect.fetchFirst(),
                "job",
                "at",
                "limit");
    }

    /**
     * Extends a skip to more fires, if it still ends where the writer saw it end: a compare-and-set,
     * so that one instance only extends it over a fire.
     */
    Statement extendSkip() {
        return Statement.of(
                "UPDATE " + table + " SET fire_until = ?, fires = fires + ? WHERE id = ? AND skip_reason = ?"
                        + " AND fire_until = ?",
                "last",
                "more fires",
                "id",
                "reason",
                "seen until");
    }

    /**
     * Locks a job's row in the jobs table until the transaction ends, so that one job's new skip
     * records are written one at a time across the cluster.
     */
    Statement lockJob() {
        return Statement.of("SELECT job_name FROM " + jobs + " WHERE job_name = ? FOR UPDATE", "job");
    }

    /**
     * Records skipped fires of a job, unless one of the job's latest {@value #LATEST_READ} records
     * already covers one of them (another instance recorded them, or ran one). Two instances that
     * insert the same first fire at once meet the unique index on (name, fire_at, skip_reason).
     */
    Statement insertSkip() {
        return Statement.of(
                "INSERT INTO " + table + " (kind, name, task_key, fire_at, instance_name, started_at, duration_ms,"
                        + " outcome, attempt, error, fire_until, fires, skip_reason, catch_up) SELECT 'JOB', ?,"
                        + " NULL, ?, ?, " + dialect.now()
                        + ", 0, 'SKIPPED', 1, NULL, ?, ?, ?, FALSE FROM (SELECT 1 AS one) one"
                        + " WHERE NOT EXISTS (SELECT 1 FROM (SELECT fire_at, fire_until FROM " + table
                        + " WHERE name = ? AND kind = 'JOB' AND fire_at <= ? ORDER BY fire_at DESC"
                        + dialect.fetchFirst() + ") latest WHERE COALESCE(latest.fire_until, latest.fire_at) >= ?)",
                "job",
                "first",
                "instance",
                "last",
                "fires",
                "reason",
                "job",
                "last",
                "limit",
                "first");
    }

    /**
     * The start of the oldest record (lowest id), so that pruning by age costs one index probe when
     * nothing is due; its limit is 1.
     */
    Statement oldestStart() {
        return Statement.of("SELECT started_at FROM " + table + " ORDER BY id" + dialect.fetchFirst(), "limit");
    }

    /** Deletes a batch of records started before now plus a (negative) delay. */
    Statement deleteOlder() {
        return Statement.of(dialect.deleteFirst(table, startedBefore), "minus retention millis", "batch");
    }

    /**
     * The id of the newest record beyond the most kept, counting back from the newest; no row when
     * there are not that many.
     */
    Statement countCutoff() {
        return Statement.of("SELECT id FROM " + table + " ORDER BY id DESC" + dialect.skipThenFirst(), "most rows");
    }

    /** Deletes a batch of records with an id up to a cutoff. */
    Statement deleteUpTo() {
        return Statement.of(dialect.deleteFirst(table, "id <= ?"), "cutoff id", "batch");
    }
}
