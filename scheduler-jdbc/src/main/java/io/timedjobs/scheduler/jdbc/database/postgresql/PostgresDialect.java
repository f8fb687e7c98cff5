package io.timedjobs.scheduler.jdbc.database.postgresql;

import io.timedjobs.scheduler.jdbc.cluster.JobSql;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Upsert;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskSql;
import io.timedjobs.scheduler.jdbc.schema.SchemaFailures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.RowMapper;

/**
 * Immutable, thread-safe; used through {@link JdbcDialect} only, which loads it as a service. PostgreSQL 12 or later.
 *
 * <ul>
 *   <li>The clock is {@code clock_timestamp()}, which moves within a transaction (unlike {@code
 *       now()}, which stays at its start).
 *   <li>Insert-if-absent appends {@code ON CONFLICT DO NOTHING}; an upsert is {@code INSERT ... ON
 *       CONFLICT DO UPDATE}; changed rows come back with {@code RETURNING}; an insert may sit in a
 *       {@code WITH} whose {@code SELECT} reads the job's row in the same statement.
 *   <li>The schema script runs in one transaction that first takes a transaction-scoped advisory
 *       lock, so that one instance creates the tables while the others wait and then find them.
 * </ul>
 */
public final class PostgresDialect extends JdbcDialect {

    /** Key of the advisory lock that serializes schema creation ("timedjob" in ASCII). */
    private static final long ADVISORY_LOCK_KEY = 0x74696d65646a6f62L;

    /** PostgreSQL's own statements of the groups of tables where they differ from the portable ones. */
    public PostgresDialect() {
        ownStatements(JobSql.Factory.class, PostgresJobSql::new);
        ownStatements(DurableTaskSql.Factory.class, PostgresDurableTaskSql::new);
        ownStatements(SchemaFailures.class, new PostgresSchemaFailures());
    }

    @Override
    protected boolean isProduct(String lowerCaseProductName) {
        return lowerCaseProductName.contains("postgresql");
    }

    @Override
    public String scriptFolder() {
        return "postgresql";
    }

    @Override
    public String now() {
        return "clock_timestamp()";
    }

    @Override
    public String plusMillis(String timestamp) {
        return "(" + timestamp + " + CAST(? AS BIGINT) * INTERVAL '1 millisecond')";
    }

    @Override
    public int insertIfAbsent(JdbcOperations jdbc, String insert, @Nullable Object... args) {
        return jdbc.update(insert + " ON CONFLICT DO NOTHING", args);
    }

    /**
     * {@code statement_timestamp()}: the time the statement arrived, fixed while it runs. Compared
     * with {@code clock_timestamp()}, which is volatile, a due bound then ends the index scan of the
     * pending tasks at the first one not due, instead of filtering the whole backlog each poll.
     */
    @Override
    public String statementNow() {
        return "statement_timestamp()";
    }

    @Override
    public String returningNow(String update) {
        return update + " RETURNING " + now();
    }

    /** The update in a data-modifying {@code WITH}; the select reads its row and the other columns. */
    @Override
    public String returningNowWith(String update, String columns) {
        return "WITH beat AS (" + update + " RETURNING " + now() + " AS beat_now) SELECT beat_now, " + columns
                + " FROM beat";
    }

    /** An {@code ARRAY} constructor over the subquery. */
    @Override
    public String arrayOf(String query) {
        return "ARRAY(" + query + ")";
    }

    /** Data-modifying {@code WITH} clauses: both writes run, in one round trip and one implicit transaction. */
    @Override
    public String changeWithInsert(String change, String insert) {
        return "WITH changed AS (" + change + " RETURNING 1), recorded AS (" + insert
                + ") SELECT COUNT(*) FROM changed";
    }

    /** {@code NOTIFY} as a function, so that the channel and payload are bound as values. */
    @Override
    public String notifySql() {
        return "SELECT pg_notify(?, ?)";
    }

    /**
     * The ids as an array, built once before the rows are read ({@code ANY(ARRAY(...))}), so that
     * the rows are always found through the primary key. As {@code IN (subquery)}, the plan the server
     * keeps for a prepared statement (planned for any limit) may join the subquery with a scan of the
     * whole table; and a subquery that locks rows must not be run twice.
     */
    @Override
    protected String idIn(String subquery) {
        return "id = ANY(ARRAY(" + subquery + "))";
    }

    @Override
    protected String returning(String update, String columns) {
        return update + " RETURNING " + columns;
    }

    @Override
    public <T> List<T> upsert(JdbcOperations jdbc, Upsert upsert, List<?> values, RowMapper<T> rows) {
        String placeholders = upsert.bound().stream().map(column -> "?").collect(Collectors.joining(", "));
        String replaced = upsert.replaced().stream()
                .map(column -> column + " = EXCLUDED." + column)
                .collect(Collectors.joining(", "));
        String sql = "INSERT INTO " + upsert.table() + " (" + upsert.boundNames() + ", " + upsert.insertOnlyNames()
                + ") VALUES (" + placeholders + ", " + upsert.insertOnlyValues() + ") ON CONFLICT ("
                + String.join(", ", upsert.key()) + ") DO UPDATE SET " + replaced + ", "
                + upsert.updateOnlyAssignments() + " RETURNING " + upsert.returning();
        return jdbc.query(sql, ps -> bind(ps, values), rows);
    }

    /** Wherever the search path finds the name, as any unquoted name in a statement. */
    @Override
    public String tableExists() {
        return "SELECT COUNT(*) FROM (SELECT to_regclass(CAST(? AS TEXT)) AS found) t WHERE found IS NOT NULL";
    }

    @Override
    public void runSchemaScript(Connection connection, SchemaScript script) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(" + ADVISORY_LOCK_KEY + ")");
        }
        script.run();
    }

    /** The set as one parameter, an array. */
    @Override
    public io.timedjobs.scheduler.jdbc.database.Statement anyOf(String column, int count) {
        return io.timedjobs.scheduler.jdbc.database.Statement.of(column + " = ANY(?)", column + " set");
    }

    @Override
    protected int bindAnyOf(PreparedStatement ps, int index, String[] values) throws SQLException {
        ps.setArray(index, ps.getConnection().createArrayOf("VARCHAR", values));
        return index + 1;
    }

    @Override
    public String toString() {
        return "POSTGRESQL";
    }
}
