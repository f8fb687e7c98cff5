package io.timedjobs.scheduler.jdbc.database.mariadb;

import io.timedjobs.scheduler.jdbc.database.DeadlockRetry;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.RowChange;
import io.timedjobs.scheduler.jdbc.database.Upsert;
import io.timedjobs.scheduler.jdbc.schema.SchemaFailures;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.PreparedStatementCallback;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.RowMapperResultSetExtractor;

/**
 * Immutable, thread-safe; used through {@link JdbcDialect} only, which loads it as a service. MariaDB 10.6 or later, and MySQL
 * 8.0.1 or later: only SQL that both document, so that one dialect and one set of scripts serve both.
 *
 * <ul>
 *   <li>Instants are {@code DATETIME(6)} columns holding UTC, bound and read as the UTC {@link
 *       LocalDateTime}: neither MariaDB Connector/J nor MySQL Connector/J converts a {@code
 *       LocalDateTime}, and {@code DATETIME} has no zone the session could shift ({@code TIMESTAMP}
 *       would be converted by the session's time zone, and ends in 2038). The clock is {@code
 *       UTC_TIMESTAMP(6)}, which no session or server time zone moves either: read once per statement
 *       (like {@code NOW(6)}, unlike {@code SYSDATE(6)}), so that every row of a statement sees one
 *       time, and a new one in each statement of a transaction.
 *   <li>Insert-if-absent is an {@code INSERT IGNORE}: a key already taken is then a warning and 0
 *       rows, not an error, which the connector would log at WARN for every fire an instance loses.
 *       {@code IGNORE} also turns other errors into warnings on a row it writes all the same (a too
 *       long value cut, a null made a default): the warnings are read whenever the server reported
 *       any, whether a row was written or not (a value cut may collide with a key already there),
 *       and one that says a value was changed is thrown as the error it would have been (a row
 *       written stays where no transaction of the caller's rolls it back).
 *   <li>Neither database returns the rows an {@code UPDATE} changed, nor has a row limit in an {@code IN}
 *       subquery: a claim is a {@code SELECT ... FOR UPDATE SKIP LOCKED} of the ids, an {@code UPDATE}
 *       of those ids and a {@code SELECT} of them, in one transaction on one connection (the caller's,
 *       if it has one; else its own, at READ COMMITTED, which locks no gaps). An upsert is {@code
 *       INSERT ... ON DUPLICATE KEY UPDATE} and a read of the row by its key, likewise. The claim's
 *       three statements are {@link LockThenUpdate}'s.
 *   <li>A set of values is one parameter per value ({@code IN (?, ?)}); the row limit is {@code LIMIT}.
 *   <li>The schema scripts run under {@code GET_LOCK}, a lock of the session: it is taken and released
 *       on the connection that runs them, and outlives the commits that MariaDB's DDL makes.
 *   <li>A deadlock (error 1213) rolls back the whole transaction: a statement that ran alone (no
 *       transaction of the caller's) is run again, a bounded number of times; one within a
 *       transaction fails, for the transaction's owner to decide ({@link DeadlockRetry}).
 * </ul>
 */
public final class MariaDbDialect extends JdbcDialect {

    /**
     * Codes of the errors that {@code INSERT IGNORE} turns into warnings on a row it writes all the
     * same, changed: a value cut or out of range (1264, 1265, 1406), a value of the wrong kind made
     * another (1292, 1366, 1411), a null or a missing value made a default (1048, 1263, 1364). Other
     * warnings (a duplicate key, a note that the statement is unsafe for statement-based
     * replication) leave the row as asked.
     */
    private static final Set<Integer> CHANGED_VALUE = Set.of(1048, 1263, 1264, 1265, 1292, 1364, 1366, 1406, 1411);

    /** How long an instance waits for another's schema script, in seconds. */
    private static final int SCHEMA_LOCK_SECONDS = 300;

    /**
     * The schema lock's name: per database, since {@code GET_LOCK} names are the server's, and within
     * the 64 characters MySQL allows.
     */
    private static final String SCHEMA_LOCK_NAME = "CONCAT('timed_jobs_schema_', SHA1(COALESCE(DATABASE(), '')))";

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

    /** The claims and the updates whose rows are read back, which take three statements here. */
    private final LockThenUpdate lockThenUpdate = new LockThenUpdate(this);

    /** MariaDB's own reading of its schema statements' failures. */
    public MariaDbDialect() {
        ownStatements(SchemaFailures.class, new MariaDbSchemaFailures());
    }

    @Override
    protected boolean isProduct(String lowerCaseProductName) {
        return lowerCaseProductName.contains("mariadb") || lowerCaseProductName.contains("mysql");
    }

    @Override
    protected void checkVersion(@Nullable String productName, @Nullable String productVersion) {
        String version = productVersion == null ? "" : productVersion;
        boolean mariaDb = version.toLowerCase(Locale.ROOT).contains("mariadb")
                || (productName != null && productName.toLowerCase(Locale.ROOT).contains("mariadb"));
        int[] found = parse(version);
        if (mariaDb && !atLeast(found, 10, 6, 0)) {
            throw new IllegalStateException("Timed Jobs needs MariaDB 10.6 or later (for SKIP LOCKED), but the"
                    + " DataSource's server is MariaDB " + version);
        }
        if (!mariaDb && !atLeast(found, 8, 0, 1)) {
            throw new IllegalStateException("Timed Jobs needs MySQL 8.0.1 or later (for SKIP LOCKED), but the"
                    + " DataSource's server is MySQL " + version);
        }
    }

    /**
     * Returns major, minor and patch of a server version: MariaDB's as MySQL clients see it carries a
     * {@code 5.5.5-} prefix before its own, which is skipped.
     */
    static int[] parse(String version) {
        String own = version.startsWith("5.5.5-") ? version.substring("5.5.5-".length()) : version;
        Matcher matcher = VERSION.matcher(own);
        if (!matcher.find()) {
            return new int[] {0, 0, 0};
        }
        int patch = matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3));
        return new int[] {Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)), patch};
    }

    private static boolean atLeast(int[] version, int major, int minor, int patch) {
        return Arrays.compare(version, new int[] {major, minor, patch}) >= 0;
    }

    @Override
    public String scriptFolder() {
        return "mariadb";
    }

    @Override
    public String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    public String plusMillis(String timestamp) {
        return "TIMESTAMPADD(MICROSECOND, CAST(? AS SIGNED) * 1000, " + timestamp + ")";
    }

    @Override
    public String fetchFirst() {
        return " LIMIT ?";
    }

    @Override
    public String skipThenFirst() {
        return " LIMIT 1 OFFSET ?";
    }

    /** Neither accepts a row limit in an {@code IN} subquery; a delete takes one of its own. */
    @Override
    public String deleteFirst(String table, String condition) {
        return "DELETE FROM " + table + " WHERE " + condition + " ORDER BY id LIMIT ?";
    }

    @Override
    public String instantParameter() {
        return "CAST(? AS DATETIME(6))";
    }

    /** Untyped: MariaDB and MySQL infer text, and a cast would cut a too long value where the column refuses it. */
    @Override
    public String textParameter(int length) {
        return "?";
    }

    @Override
    public Object bind(Instant instant) {
        return LocalDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    @Override
    public @Nullable Instant readInstant(ResultSet resultSet, String column) throws SQLException {
        LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }

    @Override
    public @Nullable Instant readInstant(ResultSet resultSet, int column) throws SQLException {
        LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
        return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }

    /**
     * A lease renewal scans the claimed-by index and locks rows in its order while a completion
     * locks its row first and then its index entries: InnoDB can pick either as a deadlock's loser.
     * The loser was rolled back whole, so it runs again, outside a caller's transaction.
     */
    /**
     * The condition as is: MariaDB cannot select from the table an UPDATE changes. A renewal may then
     * deadlock with a group of starts or completions (each locks its rows by id, the renewal in the
     * order of the claimed-by index): the renewal that loses runs again ({@link #update}); a group
     * that loses is written again task by task.
     */
    @Override
    public String unlockedRows(String table, String condition) {
        return condition;
    }

    @Override
    public int insertIfAbsent(JdbcOperations jdbc, String insert, @Nullable Object... args) {
        if (!insert.startsWith("INSERT INTO ")) {
            throw new IllegalArgumentException("Not an INSERT INTO statement: " + insert);
        }
        String ignoring = "INSERT IGNORE INTO " + insert.substring("INSERT INTO ".length());
        for (int attempt = 1; ; attempt++) {
            try {
                return Objects.requireNonNull(jdbc.execute(ignoring, (PreparedStatementCallback<Integer>) statement -> {
                    new ArgumentPreparedStatementSetter(args).setValues(statement);
                    int inserted = statement.executeUpdate();
                    // Read whatever the count: a value cut to fit may then collide with a key
                    // already there, and a 0 would pass for a fire lost to another instance. The
                    // connector asks the server only when it reported warnings (a lost key does).
                    refuseChangedValues(insert, statement.getWarnings());
                    return inserted;
                }));
            } catch (PessimisticLockingFailureException lockFailure) {
                if (!DeadlockRetry.retriable(lockFailure, attempt)) {
                    throw lockFailure;
                }
            }
        }
    }

    /**
     * Throws the first warning of an {@code INSERT IGNORE} that says it wrote a value changed: one
     * the plain insert would have refused.
     */
    private static void refuseChangedValues(String insert, @Nullable SQLWarning warnings) {
        for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
            if (CHANGED_VALUE.contains(warning.getErrorCode())) {
                throw new DataIntegrityViolationException(
                        "Timed Jobs could not write a value as given (error " + warning.getErrorCode() + ": "
                                + warning.getMessage() + ") in: " + insert,
                        warning);
            }
        }
    }

    @Override
    public <T> List<T> claim(
            JdbcOperations jdbc,
            RowChange change,
            List<?> setBinds,
            List<?> conditionBinds,
            int limit,
            RowMapper<T> rows) {
        return lockThenUpdate.claim(jdbc, change, setBinds, conditionBinds, limit, rows);
    }

    @Override
    public <T> List<T> updateReturning(
            JdbcOperations jdbc, RowChange change, List<?> setBinds, List<?> conditionBinds, RowMapper<T> rows) {
        return lockThenUpdate.updateReturning(jdbc, change, setBinds, conditionBinds, rows);
    }

    /** Not used: {@link #claim} and {@link #updateReturning} are this dialect's own. */
    @Override
    protected String returning(String update, String columns) {
        throw new UnsupportedOperationException("MariaDB and MySQL cannot return the rows an UPDATE changed");
    }

    /**
     * Inserts with {@code ON DUPLICATE KEY UPDATE} ({@code VALUES(column)} is the inserted value: MySQL
     * 8.0.20 deprecates it for a row alias, which MariaDB lacks) and reads the row back by its key.
     * Assignments run left to right here; none reads a column assigned before it.
     */
    @Override
    public <T> List<T> upsert(JdbcOperations jdbc, Upsert upsert, List<?> values, RowMapper<T> rows) {
        String placeholders = upsert.bound().stream().map(column -> "?").collect(Collectors.joining(", "));
        String replaced = upsert.replaced().stream()
                .map(column -> column + " = VALUES(" + column + ")")
                .collect(Collectors.joining(", "));
        String insert = "INSERT INTO " + upsert.table() + " (" + upsert.boundNames() + ", "
                + upsert.insertOnlyNames() + ") VALUES (" + placeholders + ", " + upsert.insertOnlyValues()
                + ") ON DUPLICATE KEY UPDATE " + replaced + ", " + upsert.updateOnlyAssignments();
        List<Object> keyValues = new ArrayList<>();
        List<String> boundNames =
                upsert.bound().stream().map(Upsert.Column::name).toList();
        for (String key : upsert.key()) {
            keyValues.add(values.get(boundNames.indexOf(key)));
        }
        String read = "SELECT " + upsert.returning() + " FROM " + upsert.table() + " WHERE "
                + upsert.key().stream().map(key -> key + " = ?").collect(Collectors.joining(" AND "));
        return DeadlockRetry.retryingDeadlocks(jdbc, session -> {
            try (PreparedStatement statement = session.prepare(insert)) {
                bind(statement, values);
                statement.executeUpdate();
            }
            try (PreparedStatement statement = session.prepare(read)) {
                bind(statement, keyValues);
                try (ResultSet result = statement.executeQuery()) {
                    return new RowMapperResultSetExtractor<>(rows).extractData(result);
                }
            }
        });
    }

    /** In the connection's database; names are compared as stored, as the server compares them. */
    @Override
    public String tableExists() {
        return "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?";
    }

    @Override
    public void runSchemaScript(Connection connection, SchemaScript script) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet locked = statement.executeQuery(
                        "SELECT GET_LOCK(" + SCHEMA_LOCK_NAME + ", " + SCHEMA_LOCK_SECONDS + ")")) {
            if (!locked.next() || locked.getInt(1) != 1) {
                throw new SQLException("Timed Jobs waited " + SCHEMA_LOCK_SECONDS
                        + " s for another instance's schema script (lock " + SCHEMA_LOCK_NAME + ") and gave up");
            }
        }
        try {
            script.run();
        } finally {
            try (Statement statement = connection.createStatement()) {
                statement.execute("DO RELEASE_LOCK(" + SCHEMA_LOCK_NAME + ")");
            }
        }
    }

    @Override
    public String toString() {
        return "MARIADB";
    }
}
