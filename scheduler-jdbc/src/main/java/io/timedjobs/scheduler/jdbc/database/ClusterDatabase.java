package io.timedjobs.scheduler.jdbc.database;

import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Immutable, thread-safe: the database Timed Jobs coordinates through, with what every statement
 * needs: the data source, a {@link JdbcTemplate} on it, its {@link JdbcDialect} and the {@link
 * TableNames}.
 *
 * <p>{@link #jdbc()} is the scheduler's own way in: every connection it takes and every statement
 * it runs waits at most the {@linkplain #databaseTimeout() database timeout} ({@code
 * timed-jobs.cluster.database-timeout}), whatever the pool's timeouts, so that no scheduler thread
 * is held by a database that is away. {@link #dataSource()} is the application's data source as
 * is, for work that joins the application's transactions (scheduling a durable task, a handler's
 * completion transaction) and for schema set-up.
 */
public final class ClusterDatabase {

    /** Default of {@code timed-jobs.cluster.database-timeout}. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private final DataSource dataSource;
    private final DataSource bounded;
    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final TableNames tables;
    private final Duration databaseTimeout;

    /** Wraps a data source whose dialect is already known, with the default database timeout. */
    public ClusterDatabase(DataSource dataSource, JdbcDialect dialect, TableNames tables) {
        this(dataSource, dialect, tables, DEFAULT_TIMEOUT);
    }

    /**
     * Wraps a data source whose dialect is already known.
     *
     * @param databaseTimeout longest wait of a scheduler thread for a connection, and for a statement
     */
    public ClusterDatabase(DataSource dataSource, JdbcDialect dialect, TableNames tables, Duration databaseTimeout) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.tables = Objects.requireNonNull(tables, "tables");
        this.databaseTimeout = Objects.requireNonNull(databaseTimeout, "timed-jobs.cluster.database-timeout");
        this.bounded = new BoundedDataSource(dataSource, databaseTimeout);
        this.jdbc = boundedTemplate(bounded, databaseTimeout);
    }

    /** Detects the dialect of the data source; fails at once if the database is not supported. */
    public static ClusterDatabase of(DataSource dataSource, TableNames tables) {
        return of(dataSource, tables, DEFAULT_TIMEOUT);
    }

    /** As {@link #of(DataSource, TableNames)}, with a database timeout of its own. */
    public static ClusterDatabase of(DataSource dataSource, TableNames tables, Duration databaseTimeout) {
        return new ClusterDatabase(dataSource, JdbcDialect.detect(dataSource), tables, databaseTimeout);
    }

    private static JdbcTemplate boundedTemplate(DataSource dataSource, Duration timeout) {
        JdbcTemplate template = new JdbcTemplate(dataSource);
        // JDBC counts whole seconds; rounded up, the network timeout on each connection is the hard bound.
        long seconds = Math.max(1, (timeout.toMillis() + 999) / 1000);
        template.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, seconds));
        return template;
    }

    /** Returns the application's data source as is: for transactions shared with the application. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Returns the data source as the scheduler's threads use it: connections within the database
     * timeout, each with that timeout on its network reads; not for the application's transactions.
     */
    public DataSource boundedDataSource() {
        return bounded;
    }

    /** Returns the scheduler's template: bounded connections, statements with a query timeout. */
    public JdbcTemplate jdbc() {
        return jdbc;
    }

    public JdbcDialect dialect() {
        return dialect;
    }

    public TableNames tables() {
        return tables;
    }

    /** Returns the longest wait of a scheduler thread on the database, for a connection or a statement. */
    public Duration databaseTimeout() {
        return databaseTimeout;
    }

    @Override
    public String toString() {
        return "ClusterDatabase[" + dialect + ", " + tables.prefix() + "*]";
    }
}
