package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.util.ArrayList;
import java.util.List;

/**
 * Immutable; any thread. The statements of the run history table for one database, readable in one
 * place. Values are bound; only the table name and the dialect's clock, row limits and batched
 * delete are formatted in. Plain SQL but for those: no arrays (a set of outcomes is one parameter per
 * value), no rows returned from a change (where a dialect folds a record into its run's end, {@link
 * JdbcDialect#changeWithInsert} does).
 */
final class RunHistorySql {

    static final String COLUMNS =
            "id, kind, name, task_key, fire_at, instance_name, started_at, duration_ms, outcome, attempt, error";

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
        "error"
    };

    private final String table;
    private final String startedBefore;
    private final JdbcDialect dialect;
    private final String nowMinusDuration;

    RunHistorySql(JdbcDialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.table = tables.runHistory();
        this.nowMinusDuration = dialect.nowPlusMillis();
        this.startedBefore = "started_at < " + dialect.nowPlusMillis();
    }

    /** Records a run that ended now: its start is the database's time less its duration. */
    Statement insert() {
        return Statement.of(
                "INSERT INTO " + table + " (kind, name, task_key, fire_at, instance_name, started_at, duration_ms,"
                        + " outcome, attempt, error) VALUES (?, ?, ?, ?, ?, " + nowMinusDuration + ", ?, ?, ?, ?)",
                RECORD_BINDS);
    }

    /**
     * {@link #insert()} of {@code rows} records in one statement (one {@code VALUES} row each): a
     * group of completions writes its records at the cost of one statement; the binds of {@link
     * #insert()}, record after record.
     */
    Statement insertRows(int rows) {
        String row = "(?, ?, ?, ?, ?, " + nowMinusDuration + ", ?, ?, ?, ?)";
        StringBuilder insert = new StringBuilder("INSERT INTO " + table + " (kind, name, task_key, fire_at,"
                + " instance_name, started_at, duration_ms, outcome, attempt, error) VALUES ");
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
        String sql = "INSERT INTO " + table + " (kind, name, task_key, fire_at, instance_name, started_at, duration_ms,"
                + " outcome, attempt, error) SELECT CAST(? AS VARCHAR(8)), CAST(? AS VARCHAR(300)),"
                + " CAST(? AS VARCHAR(200)), CAST(? AS TIMESTAMP WITH TIME ZONE), CAST(? AS VARCHAR(200)), "
                + nowMinusDuration + ", CAST(? AS BIGINT), CAST(? AS VARCHAR(16)), CAST(? AS INTEGER),"
                + " CAST(? AS VARCHAR(500))" + (perChangedRow ? " FROM changed" : "");
        return Statement.of(sql, RECORD_BINDS);
    }

    /**
     * The records that meet a query's conditions, latest start first; bound by {@link #findBinds}: the
     * values of the conditions the query sets, then its limit.
     */
    Statement find(RunHistoryQuery query) {
        List<String> binds = new ArrayList<>();
        StringBuilder text = new StringBuilder("SELECT " + COLUMNS + " FROM " + table + " WHERE 1 = 1");
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
        if (!query.outcomes().isEmpty()) {
            text.append(" AND outcome IN (")
                    .append(String.join(
                            ", ", java.util.Collections.nCopies(query.outcomes().size(), "?")))
                    .append(")");
            query.outcomes().forEach(outcome -> binds.add("outcome"));
        }
        if (query.from() != null) {
            text.append(" AND started_at >= ?");
            binds.add("from");
        }
        if (query.to() != null) {
            text.append(" AND started_at < ?");
            binds.add("to");
        }
        binds.add("limit");
        text.append(" ORDER BY started_at DESC, id DESC").append(dialect.fetchFirst());
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
        if (query.from() != null) {
            binds.add(query.from());
        }
        if (query.to() != null) {
            binds.add(query.to());
        }
        binds.add(query.limit());
        return binds;
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
