package io.timedjobs.scheduler.jdbc.database.h2;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import io.timedjobs.scheduler.jdbc.database.Upsert;
import io.timedjobs.scheduler.jdbc.schema.SchemaFailures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.RowMapper;

/**
 * Immutable, thread-safe; used through {@link JdbcDialect} only, which loads it as a service. H2 2.x, for development and tests.
 *
 * <ul>
 *   <li>The clock is {@code CURRENT_TIMESTAMP}, read once per statement.
 *   <li>Insert-if-absent runs a plain insert, and the duplicate key error counts as "absent was
 *       false"; an upsert is a {@code MERGE}, tried again when a concurrent insert of its key beat it
 *       (H2's {@code MERGE} is not atomic against that); changed rows are selected {@code FROM FINAL TABLE}.
 *   <li>A batched delete limits the {@code DELETE} itself ({@code FETCH FIRST}).
 *   <li>The schema script runs under a lock of this JVM: H2's {@code IF NOT EXISTS} races on
 *       indexes. H2 has no lock across processes: several JVMs starting together on one server-mode
 *       database may run the same script, and each skips the changes and versions another made.
 * </ul>
 */
public final class H2Dialect extends JdbcDialect {

    /** Serializes schema scripts within this JVM. */
    private static final Object SCHEMA_LOCK = new Object();

    /** Runs of a schema script that met another process migrating the same database. */
    private static final int SCHEMA_ATTEMPTS = 5;

    /**
     * H2's errors of a script run beside another process's: table not found (42102), column not
     * found (42122), lock timeout (50200), concurrent update (90131), and the general error (50000)
     * H2 2.4 answers when another process alters the same table at the same moment (it fails inside
     * its copy of the table).
     */
    private static final Set<Integer> H2_MIGRATING_ELSEWHERE = Set.of(42102, 42122, 50000, 50200, 90131);

    /** Tries of an upsert that lost the insert of its key to another transaction. */
    private static final int UPSERT_ATTEMPTS = 3;

    /** H2's own reading of its schema statements' failures. */
    public H2Dialect() {
        ownStatements(SchemaFailures.class, new H2SchemaFailures());
    }

    @Override
    protected boolean isProduct(String lowerCaseProductName) {
        return lowerCaseProductName.equals("h2");
    }

    @Override
    public String scriptFolder() {
        return "h2";
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP";
    }

    @Override
    public String plusMillis(String timestamp) {
        return "DATEADD(MILLISECOND, CAST(? AS BIGINT), " + timestamp + ")";
    }

    @Override
    public int insertIfAbsent(JdbcOperations jdbc, String insert, @Nullable Object... args) {
        try {
            return jdbc.update(insert, args);
        } catch (DuplicateKeyException duplicate) {
            return 0;
        }
    }

    /** H2 limits a {@code DELETE} itself; its {@code IN} subquery with a limit would be run once per row. */
    @Override
    public String deleteFirst(String table, String condition) {
        return "DELETE FROM " + table + " WHERE " + condition + " FETCH FIRST ? ROWS ONLY";
    }

    @Override
    protected String returning(String update, String columns) {
        return "SELECT " + columns + " FROM FINAL TABLE (" + update + ")";
    }

    @Override
    public <T> List<T> upsert(JdbcOperations jdbc, Upsert upsert, List<?> values, RowMapper<T> rows) {
        // The bound values are typed in the VALUES row, since H2 cannot infer a parameter's type there.
        String typed = upsert.bound().stream()
                .map(column -> "CAST(? AS " + column.sql() + ")")
                .collect(Collectors.joining(", "));
        String matched = upsert.key().stream()
                .map(column -> upsert.table() + "." + column + " = n." + column)
                .collect(Collectors.joining(" AND "));
        String replaced = upsert.replaced().stream()
                .map(column -> column + " = n." + column)
                .collect(Collectors.joining(", "));
        String inserted =
                upsert.bound().stream().map(column -> "n." + column.name()).collect(Collectors.joining(", "));
        String sql = "SELECT " + upsert.returning() + " FROM FINAL TABLE (MERGE INTO " + upsert.table()
                + " USING (VALUES (" + typed + ")) AS n(" + upsert.boundNames() + ") ON " + matched
                + " WHEN MATCHED THEN UPDATE SET " + replaced + ", " + upsert.updateOnlyAssignments()
                + " WHEN NOT MATCHED THEN INSERT (" + upsert.boundNames() + ", " + upsert.insertOnlyNames()
                + ") VALUES (" + inserted + ", " + upsert.insertOnlyValues() + "))";
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbc.query(sql, ps -> bind(ps, values), rows);
            } catch (DuplicateKeyException concurrentInsert) {
                // H2's MERGE is not atomic against an insert of the same key by another transaction:
                // both may miss the row and insert it. The row exists now, so the MERGE matches it.
                if (attempt == UPSERT_ATTEMPTS) {
                    throw concurrentInsert;
                }
            }
        }
    }

    /** In the current schema; H2 stores unquoted names in capitals. */
    @Override
    public String tableExists() {
        return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = CURRENT_SCHEMA"
                + " AND TABLE_NAME = UPPER(?)";
    }

    /**
     * Runs the script under this JVM's lock; another process migrating the same server-mode
     * database meanwhile can make a statement meet a table it has not created yet, or wait past
     * H2's lock timeout for a table it alters: the whole script then runs again, from the versions
     * recorded by then, a few times.
     */
    @Override
    public void runSchemaScript(Connection connection, SchemaScript script) throws SQLException {
        synchronized (SCHEMA_LOCK) {
            for (int attempt = 1; ; attempt++) {
                try {
                    script.run();
                    return;
                } catch (SQLException failure) {
                    if (attempt == SCHEMA_ATTEMPTS || !H2_MIGRATING_ELSEWHERE.contains(failure.getErrorCode())) {
                        throw failure;
                    }
                    connection.rollback();
                    pause(attempt);
                }
            }
        }
    }

    private static void pause(int attempt) throws SQLException {
        try {
            Thread.sleep(100L * attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("Interrupted while another process migrated the Timed Jobs tables", e);
        }
    }

    /** The set as one parameter, an array. */
    @Override
    public Statement anyOf(String column, int count) {
        return Statement.of(column + " = ANY(?)", column + " set");
    }

    @Override
    protected int bindAnyOf(PreparedStatement ps, int index, String[] values) throws SQLException {
        ps.setArray(index, ps.getConnection().createArrayOf("VARCHAR", values));
        return index + 1;
    }

    @Override
    public String toString() {
        return "H2";
    }
}
