package io.timedjobs.benchmarks.cluster;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Not thread-safe, used by the benchmark thread only: one database server for a whole benchmark
 * run, and a connection pool per simulated instance, as separate applications would have. The
 * cluster scenarios take the kind from {@code -Dbench.database}: {@code postgresql} (the default,
 * an embedded PostgreSQL) or {@code mariadb} (a MariaDB server of the run's own).
 */
abstract class BenchDatabase implements AutoCloseable {

    /** The system property that chooses the database of the cluster scenarios. */
    static final String PROPERTY = "bench.database";

    /** The kinds of server a run can have. */
    enum Kind {
        POSTGRESQL,
        MARIADB
    }

    private final List<HikariDataSource> pools = new ArrayList<>();

    /** Starts the database {@code -Dbench.database} names, PostgreSQL when it is not set. */
    static BenchDatabase fromProperty() throws IOException {
        String kind = System.getProperty(PROPERTY, "postgresql");
        return switch (kind) {
            case "postgresql" -> new PostgresBenchDatabase();
            case "mariadb" -> new MariaDbBenchDatabase();
            default -> throw new IllegalArgumentException(PROPERTY + " must be postgresql or mariadb, was " + kind);
        };
    }

    abstract Kind kind();

    /** Points a new pool at the database: URL and credentials. */
    abstract void connect(HikariConfig config);

    /** A connection of the harness's own, outside every pool, for reading the server's statistics. */
    abstract Connection adminConnection() throws SQLException;

    /**
     * Transactions committed on the database so far, read-only ones included, the scheduling too;
     * read after {@link #closePools}, for the difference over a run.
     */
    abstract long commits() throws SQLException;

    /** Stops the server; the pools are closed already. */
    abstract void stop() throws IOException;

    /** The server's product and version as the driver reports them, for a run's header. */
    String describe() throws SQLException {
        try (Connection c = adminConnection()) {
            DatabaseMetaData metaData = c.getMetaData();
            return metaData.getDatabaseProductName() + " " + metaData.getDatabaseProductVersion();
        }
    }

    /** A fresh pool of {@code size} connections for one instance; closed by {@link #closePools}. */
    DataSource pool(String name, int size) {
        HikariConfig config = new HikariConfig();
        connect(config);
        config.setPoolName(name);
        config.setMaximumPoolSize(size);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    /**
     * Closes every pool: on PostgreSQL their backends exit, which flushes their statistics, so that a
     * {@link #commits} read afterwards counts every transaction they ran.
     */
    void closePools() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }

    @Override
    public void close() throws IOException {
        closePools();
        stop();
    }
}
