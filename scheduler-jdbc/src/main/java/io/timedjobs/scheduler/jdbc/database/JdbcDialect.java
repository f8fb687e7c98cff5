package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.RowMapper;

/**
 * Not API: used by the statements of each group of tables and their stores. Immutable,
 * thread-safe: one database Timed Jobs supports, and what its statements share. Each database is a
 * subclass in a package of its own under this one ({@code postgresql}, {@code h2}, {@code
 * mariadb}), listed in {@code META-INF/services}, with its schema scripts in its {@link
 * #scriptFolder()}, and its own statements of a group of tables where they differ from the portable
 * ones ({@link #ownStatements}); SQL that only one database runs is written in its package only.
 * What a dialect decides besides: the clock ({@link #now()}, {@link #plusMillis(String)});
 * insert-if-absent ({@link #insertIfAbsent}); statements that change rows and return them ({@link
 * #claim}, {@link #updateReturning}, {@link #upsert}), run by the dialect so that a database that
 * cannot change and return rows in one statement runs them as a locking select and an update; a set
 * of values bound as one parameter ({@link #anyOf}); a batched delete ({@link #deleteFirst}); and how
 * schema scripts keep two instances from creating the tables at once ({@link #runSchemaScript}).
 * Instants are bound by {@link #bind(Instant)} and read by {@link #readInstant}.
 */
public abstract class JdbcDialect {

    /** PostgreSQL 12 or later. */
    public static final JdbcDialect POSTGRESQL = SupportedDatabases.named("POSTGRESQL");

    /** H2 2.x, for development and tests. */
    public static final JdbcDialect H2 = SupportedDatabases.named("H2");

    /** MariaDB 10.6 or later, and MySQL 8.0.1 or later with the SQL MySQL 8.0 documents. */
    public static final JdbcDialect MARIADB = SupportedDatabases.named("MARIADB");

    /** This database's own statements of groups of tables, by the kind of their factory. */
    private final Map<Class<?>, Object> ownStatements = new HashMap<>();

    /** A database of the package named by its {@link #scriptFolder()}, listed as a service of this class. */
    protected JdbcDialect() {}

    /**
     * Registers, from a subclass's constructor, the factory of this database's own statements of a
     * group of tables ({@code JobSql.Factory} for the jobs and fires), where they differ from the
     * portable ones.
     */
    protected final <F> void ownStatements(Class<F> kind, F factory) {
        ownStatements.put(kind, kind.cast(factory));
    }

    /** Returns the factory of this database's own statements of a group of tables, else {@code portable}. */
    public final <F> F statements(Class<F> kind, F portable) {
        Object own = ownStatements.get(kind);
        return own == null ? portable : kind.cast(own);
    }

    /**
     * Detects the dialect from the database the data source connects to.
     *
     * @throws IllegalStateException naming the database when it is not supported
     * @throws DataAccessResourceFailureException when the database cannot be reached
     */
    public static JdbcDialect detect(DataSource dataSource) {
        return SupportedDatabases.detect(dataSource);
    }

    /**
     * Returns the dialect of a database product name as JDBC reports it.
     *
     * @throws IllegalStateException when the product is not supported
     */
    public static JdbcDialect forProductName(@Nullable String productName) {
        return SupportedDatabases.forProductName(productName);
    }

    /** Whether JDBC's product name (in lower case) names this database. */
    protected abstract boolean isProduct(String lowerCaseProductName);

    /**
     * Refuses a server version this dialect's SQL does not run on, naming it; by default every
     * version is accepted.
     *
     * @param productName the product name as JDBC reports it
     * @param productVersion the server's version as JDBC reports it
     * @throws IllegalStateException when the version is too old
     */
    protected void checkVersion(@Nullable String productName, @Nullable String productVersion) {}

    /** Returns the folder of this database's schema scripts, for example {@code postgresql}. */
    public abstract String scriptFolder();

    /**
     * Returns the resource path of a versioned schema script, for example {@code
     * io/timedjobs/scheduler/jdbc/schema/postgresql/V1__timed_jobs.sql} for {@code "V1__timed_jobs.sql"}.
     */
    public final String schemaLocation(String scriptName) {
        return "io/timedjobs/scheduler/jdbc/schema/" + scriptFolder() + "/" + scriptName;
    }

    /** Returns the SQL expression of the database's current time, which moves within a transaction. */
    public abstract String now();

    /**
     * Returns an SQL expression of a timestamp expression plus a number of milliseconds given as
     * one bind parameter (negative to go back), for example {@code plusMillis(now())} for "the
     * database's time plus ?". {@code timestamp} is SQL of our own, never user input.
     */
    public abstract String plusMillis(String timestamp);

    /** Returns {@link #now()} plus a number of milliseconds given as one bind parameter. */
    public final String nowPlusMillis() {
        return plusMillis(now());
    }

    /**
     * Returns the database's time as one value for the whole statement, for a condition that bounds
     * a scan of an index: a time the planner knows to stay fixed can end the scan where it stops
     * matching, where one that moves as rows are read ({@link #now()} on PostgreSQL) is checked
     * against every entry read. By default {@link #now()}, which is read once per statement already.
     */
    public String statementNow() {
        return now();
    }

    /** Returns {@link #statementNow()} plus a number of milliseconds given as one bind parameter. */
    public final String statementNowPlusMillis() {
        return plusMillis(statementNow());
    }

    /** Returns the query of the database's current time: one row, one column. */
    public String clockQuery() {
        return "SELECT " + now();
    }

    /**
     * Returns {@code update} made to return the database's time, {@link #now()}, as its one column
     * (one row per row changed), or null where an update cannot return rows: the heartbeat then
     * measures the clock with {@link #clockQuery()} in a statement of its own. Null by default, the
     * portable answer.
     */
    public @Nullable String returningNow(String update) {
        return null;
    }

    /**
     * Returns {@code update} made to return one row: the database's time, {@link #now()}, then the
     * select-list expressions {@code columns} (which may read other tables), or null where an update
     * cannot carry a query (the default): see {@link BeatRide}.
     */
    public @Nullable String returningNowWith(String update, String columns) {
        return null;
    }

    /**
     * Returns a select-list expression whose value is the rows of {@code query} (one column of
     * text) as an array, read with {@link java.sql.ResultSet#getArray}, or null where it cannot
     * (the default): the heartbeat then carries no list of the live instances.
     */
    public @Nullable String arrayOf(String query) {
        return null;
    }

    /**
     * Returns one query that runs {@code change} (an UPDATE or DELETE) and {@code insert} (which may
     * read the rows {@code change} changed as the table {@code changed}, one row each) and returns the
     * number of rows {@code change} changed as its one column; binds: those of {@code change}, then
     * those of {@code insert}. Null where writes cannot share a statement (the default): the caller
     * then runs the two in a transaction.
     */
    public @Nullable String changeWithInsert(String change, String insert) {
        return null;
    }

    /**
     * Returns a query that announces a payload (second bind) on a channel (first bind) to the
     * instances that listen, delivered when the transaction commits and not before, or null where the
     * database cannot (the default): there, instances find new tasks by polling only.
     */
    public @Nullable String notifySql() {
        return null;
    }

    /** Returns the database's current time, read with {@link #clockQuery()}. */
    public final Instant currentTime(JdbcOperations jdbc) {
        Instant value = jdbc.queryForObject(clockQuery(), (rs, row) -> readInstant(rs, 1));
        return Objects.requireNonNull(value, "database time");
    }

    /**
     * Runs an {@code INSERT ... SELECT ... WHERE ...} (or {@code INSERT ... VALUES}) that must insert
     * only when no row with the same key exists, and returns the number of rows inserted: 0 when the
     * key already existed or the condition was false. Whoever gets 1 is the only one who ever will.
     */
    public abstract int insertIfAbsent(JdbcOperations jdbc, String insert, @Nullable Object... args);

    /**
     * Runs an update that may run again unchanged if the database rolled it back (a fenced start,
     * completion or failure, a lease renewal) and returns its count. A statement that lost a deadlock
     * (a lease renewal against a group of completions, each locking the same rows in its own order)
     * was rolled back whole: outside a caller's transaction it runs again, a bounded number of times
     * (see {@link DeadlockRetry#retriable}).
     */
    public final int update(JdbcOperations jdbc, String update, PreparedStatementSetter binds) {
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbc.update(update, binds);
            } catch (PessimisticLockingFailureException lockFailure) {
                if (!DeadlockRetry.retriable(lockFailure, attempt)) {
                    throw lockFailure;
                }
            }
        }
    }

    /** Returns the clause that locks selected rows and skips those another transaction has locked. */
    public String forUpdateSkipLocked() {
        return " FOR UPDATE SKIP LOCKED";
    }

    /**
     * Returns an UPDATE's condition for the rows of {@code table} that meet {@code condition} and that
     * no other transaction holds: by default those rows selected with {@code FOR UPDATE SKIP LOCKED},
     * so that an update of many rows (a lease renewal) never waits for, nor deadlocks with, a
     * transaction that locks several of them (a group of starts or completions). A dialect whose
     * groups lock one row at a time may return {@code condition} as is.
     */
    public String unlockedRows(String table, String condition) {
        return idIn("SELECT id FROM " + table + " WHERE " + condition + forUpdateSkipLocked());
    }

    /**
     * Returns a condition that a row's {@code id} is one of those {@code subquery} selects, the
     * subquery run once and the rows then found by their primary key, whatever the plan (see the
     * PostgreSQL dialect).
     */
    protected String idIn(String subquery) {
        return "id IN (" + subquery + ")";
    }

    /**
     * Returns a condition that {@code column} equals one of a set of values, bound by {@link #bind}
     * from one {@code String[]} of {@code count} values: by default one parameter per value, which a
     * database with arrays may write as one parameter.
     */
    public Statement anyOf(String column, int count) {
        String in = count == 0 ? "1 = 0" : column + " IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
        return new Statement(in, Collections.nCopies(count, column));
    }

    /** Returns the clause that keeps the first rows only, their number bound as one parameter. */
    public String fetchFirst() {
        return " FETCH FIRST ? ROWS ONLY";
    }

    /** Returns the clause that skips rows, their number bound as one parameter, and keeps the next one. */
    public String skipThenFirst() {
        return " OFFSET ? ROWS FETCH FIRST 1 ROWS ONLY";
    }

    /**
     * Returns a bound instant, typed as the database's instants, for a parameter whose type the
     * database cannot infer (in a select list, or compared with an expression).
     */
    public String instantParameter() {
        return "CAST(? AS TIMESTAMP WITH TIME ZONE)";
    }

    /**
     * Returns a bound text of at most {@code length} characters, typed where the database cannot
     * infer a parameter's type.
     */
    public String textParameter(int length) {
        return "CAST(? AS VARCHAR(" + length + "))";
    }

    /**
     * Claims rows: sets {@code change.set()} on at most {@code limit} rows of {@code change.table()}
     * that meet {@code change.condition()}, the first in {@code change.order()}, skipping rows another
     * transaction holds, and returns the changed rows' {@code change.columns()}.
     *
     * @param setBinds the binds of {@code change.set()}, in order
     * @param conditionBinds the binds of {@code change.condition()}, in order
     */
    public <T> List<T> claim(
            JdbcOperations jdbc,
            RowChange change,
            List<?> setBinds,
            List<?> conditionBinds,
            int limit,
            RowMapper<T> rows) {
        String update = "UPDATE " + change.table() + " SET " + change.set() + " WHERE "
                + idIn("SELECT id FROM " + change.table() + " WHERE " + change.condition() + change.order()
                        + " FETCH FIRST ? ROWS ONLY" + forUpdateSkipLocked());
        return jdbc.query(
                returning(update, change.columns()),
                ps -> bind(ps, concat(setBinds, conditionBinds, List.of(limit))),
                rows);
    }

    /**
     * Sets {@code change.set()} on every row of {@code change.table()} that meets {@code
     * change.condition()} and returns the changed rows' {@code change.columns()}; {@code
     * change.order()} is not used.
     */
    public <T> List<T> updateReturning(
            JdbcOperations jdbc, RowChange change, List<?> setBinds, List<?> conditionBinds, RowMapper<T> rows) {
        String update = "UPDATE " + change.table() + " SET " + change.set() + " WHERE " + change.condition();
        return jdbc.query(returning(update, change.columns()), ps -> bind(ps, concat(setBinds, conditionBinds)), rows);
    }

    /**
     * Returns a {@code DELETE} of at most a bound number of rows of {@code table} that meet {@code
     * condition}, lowest {@code id} first: a batch short enough that it never holds many locks for
     * long. Binds: those of {@code condition}, then the most rows. A database without a limit in an
     * {@code IN} subquery (MariaDB, MySQL) writes it as {@code DELETE ... ORDER BY id LIMIT ?}.
     */
    public String deleteFirst(String table, String condition) {
        return "DELETE FROM " + table + " WHERE "
                + idIn("SELECT id FROM " + table + " WHERE " + condition + " ORDER BY id FETCH FIRST ? ROWS ONLY");
    }

    /** Wraps an {@code UPDATE} so that it yields the {@code columns} of the rows it changed. */
    protected abstract String returning(String update, String columns);

    /**
     * Inserts one row, or updates the row with the same key, and returns the row's {@code
     * upsert.returning()} columns.
     *
     * @param values the values of {@code upsert.bound()}, in order
     */
    public abstract <T> List<T> upsert(JdbcOperations jdbc, Upsert upsert, List<?> values, RowMapper<T> rows);

    /**
     * Runs {@code script} (the schema script, on {@code connection} with auto-commit off, ending with
     * its commit) so that two instances starting at once against an empty database do not both
     * create the tables: {@code CREATE TABLE IF NOT EXISTS} alone can fail when two sessions race on
     * the same name.
     */
    public abstract void runSchemaScript(Connection connection, SchemaScript script) throws SQLException;

    /**
     * Returns a query of one row and one column, the number of tables (0 or 1) that the unquoted
     * name bound as its one parameter finds, read from the catalog: a missing table is found without
     * an error, which a driver may log (MariaDB Connector/J logs every error the server sends at
     * WARN), and without spoiling the transaction around it.
     */
    public abstract String tableExists();

    /** The schema script run by {@link #runSchemaScript}. */
    @FunctionalInterface
    public interface SchemaScript {
        void run() throws SQLException;
    }

    /**
     * Binds values in order: null as a null VARCHAR, an {@link Instant} by {@link #bind(Instant)}, a
     * {@link Duration} as milliseconds, a {@code String[]} as the set of an {@link #anyOf}, a {@code
     * long[]} as an array of {@code BIGINT} (where the database's own statements take one), anything
     * else as is.
     */
    public void bind(PreparedStatement ps, List<?> values) throws SQLException {
        int index = 1;
        for (Object value : values) {
            if (value == null) {
                ps.setNull(index++, Types.VARCHAR);
            } else if (value instanceof String text) {
                ps.setString(index++, text);
            } else if (value instanceof Instant instant) {
                ps.setObject(index++, bind(instant));
            } else if (value instanceof Duration duration) {
                ps.setLong(index++, duration.toMillis());
            } else if (value instanceof String[] set) {
                index = bindAnyOf(ps, index, set);
            } else if (value instanceof long[] ids) {
                // A typed array, not its text: a cast of text to an array is evaluated again for
                // each row a plan reads, which made a group's statement parse it thousands of times.
                ps.setArray(
                        index++,
                        ps.getConnection()
                                .createArrayOf(
                                        "BIGINT",
                                        java.util.Arrays.stream(ids).boxed().toArray()));
            } else {
                ps.setObject(index++, value);
            }
        }
    }

    /** Binds the set of an {@link #anyOf} at {@code index}; returns the index of the next parameter. */
    protected int bindAnyOf(PreparedStatement ps, int index, String[] values) throws SQLException {
        int next = index;
        for (String value : values) {
            ps.setString(next++, value);
        }
        return next;
    }

    /**
     * Returns the bind value of an instant, truncated to microseconds: by default an {@link
     * OffsetDateTime} in UTC, for {@code TIMESTAMP WITH TIME ZONE} columns. A dialect whose columns
     * hold no zone binds the UTC date and time instead, which no connector or session time zone
     * moves.
     */
    public Object bind(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    /** Returns the instant in a column of instants, read as {@link #bind(Instant)} writes it, or null. */
    public @Nullable Instant readInstant(ResultSet resultSet, String column) throws SQLException {
        OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** As {@link #readInstant(ResultSet, String)}, by the column's index. */
    public @Nullable Instant readInstant(ResultSet resultSet, int column) throws SQLException {
        OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** Returns the values of {@code parts}, one after the other. */
    public static List<Object> concat(List<?>... parts) {
        List<Object> all = new ArrayList<>();
        for (List<?> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    /** Returns the database's name in capitals, for example {@code POSTGRESQL}. */
    @Override
    public abstract String toString();
}
