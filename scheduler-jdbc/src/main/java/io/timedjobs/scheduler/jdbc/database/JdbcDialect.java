package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Immutable, thread-safe: the SQL that differs between the databases Timed Jobs supports, kept in
 * one place. Everything else is standard SQL that both run unchanged.
 *
 * <ul>
 *   <li>The database clock: PostgreSQL's {@code clock_timestamp()}, which moves within a
 *       transaction (unlike {@code now()}, which stays at its start); H2's {@code
 *       CURRENT_TIMESTAMP}, read once per statement.
 *   <li>Insert-if-absent: PostgreSQL appends {@code ON CONFLICT DO NOTHING}; H2 runs a plain insert
 *       and the duplicate key error counts as "absent was false".
 *   <li>Row claiming without waiting for other claimers: {@code FOR UPDATE SKIP LOCKED} on both.
 * </ul>
 *
 * <p>Instants are bound as {@link OffsetDateTime} in UTC, to {@code TIMESTAMP WITH TIME ZONE}
 * columns, truncated to microseconds (the precision both databases store), so that an instant read
 * back equals the one written.
 */
public enum JdbcDialect {

    /** PostgreSQL 12 or later. */
    POSTGRESQL(
            "postgresql",
            "clock_timestamp()",
            " ON CONFLICT DO NOTHING",
            "(%s + CAST(? AS BIGINT) * INTERVAL '1 millisecond')"),

    /** H2 2.x, for development and tests. */
    H2("h2", "CURRENT_TIMESTAMP", "", "DATEADD(MILLISECOND, CAST(? AS BIGINT), %s)");

    private final String schemaDirectory;
    private final String now;
    private final String insertIfAbsentSuffix;
    private final String plusMillisFormat;

    JdbcDialect(String schemaDirectory, String now, String insertIfAbsentSuffix, String plusMillisFormat) {
        this.schemaDirectory = schemaDirectory;
        this.now = now;
        this.insertIfAbsentSuffix = insertIfAbsentSuffix;
        this.plusMillisFormat = plusMillisFormat;
    }

    /**
     * Detects the dialect from the database the data source connects to.
     *
     * @throws IllegalStateException naming the database when it is neither PostgreSQL nor H2
     * @throws DataAccessResourceFailureException when the database cannot be reached
     */
    public static JdbcDialect detect(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            return forProductName(metaData.getDatabaseProductName());
        } catch (SQLException ex) {
            throw new DataAccessResourceFailureException(
                    "Timed Jobs could not reach its database to detect which one it is", ex);
        }
    }

    /**
     * Returns the dialect of a database product name as JDBC reports it.
     *
     * @throws IllegalStateException when the product is neither PostgreSQL nor H2
     */
    public static JdbcDialect forProductName(@Nullable String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        if (name.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (name.equals("h2")) {
            return H2;
        }
        throw new IllegalStateException("Timed Jobs keeps its tables in PostgreSQL or H2, but the DataSource is '"
                + productName + "'. Mark a supported DataSource with @TimedJobsDataSource, or set"
                + " timed-jobs.cluster.enabled=false to run every instance on its own.");
    }

    /** Returns the SQL expression of the database's current time, which moves within a transaction. */
    public String now() {
        return now;
    }

    /**
     * Returns an SQL expression of a timestamp expression plus a number of milliseconds given as
     * one bind parameter (negative to go back), for example {@code plusMillis(now())} for "the
     * database's time plus ?". {@code timestamp} is SQL of our own, never user input.
     */
    public String plusMillis(String timestamp) {
        return String.format(Locale.ROOT, plusMillisFormat, timestamp);
    }

    /** Returns {@link #now()} plus a number of milliseconds given as one bind parameter. */
    public String nowPlusMillis() {
        return plusMillis(now);
    }

    /**
     * Returns the resource path of a versioned schema script, for example {@code
     * io/timedjobs/scheduler/jdbc/schema/postgresql/V1__timed_jobs.sql} for {@code "V1__timed_jobs.sql"}.
     */
    public String schemaLocation(String scriptName) {
        return "io/timedjobs/scheduler/jdbc/schema/" + schemaDirectory + "/" + scriptName;
    }

    /**
     * Runs an {@code INSERT ... SELECT ... WHERE ...} (or {@code INSERT ... VALUES}) that must insert
     * only when no row with the same key exists, and returns the number of rows inserted: 0 when the
     * key already existed or the condition was false. Whoever gets 1 is the only one who ever will.
     */
    public int insertIfAbsent(JdbcOperations jdbc, String insert, @Nullable Object... args) {
        try {
            return jdbc.update(insert + insertIfAbsentSuffix, args);
        } catch (DuplicateKeyException duplicate) {
            return 0;
        }
    }

    /** Returns the clause that locks selected rows and skips those another transaction has locked. */
    public String forUpdateSkipLocked() {
        return " FOR UPDATE SKIP LOCKED";
    }

    /** Returns the bind value of an instant: UTC, truncated to microseconds. */
    public static OffsetDateTime bind(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    /** Returns the instant in a {@code TIMESTAMP WITH TIME ZONE} column, or null. */
    public static @Nullable Instant readInstant(ResultSet resultSet, String column) throws SQLException {
        OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** Returns the database's current time, read with {@link #now()}. */
    public Instant currentTime(JdbcOperations jdbc) {
        OffsetDateTime value = jdbc.queryForObject("SELECT " + now, OffsetDateTime.class);
        return Objects.requireNonNull(value, "database time").toInstant();
    }
}
