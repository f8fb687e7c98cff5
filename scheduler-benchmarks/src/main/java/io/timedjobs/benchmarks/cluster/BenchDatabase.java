package io.timedjobs.benchmarks.cluster;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * One embedded PostgreSQL for a whole benchmark run, and a connection pool per simulated instance,
 * as separate applications would have. Used by the benchmark thread only.
 */
final class BenchDatabase implements AutoCloseable {

    private final EmbeddedPostgres postgres;
    private final List<HikariDataSource> pools = new ArrayList<>();

    BenchDatabase() throws IOException {
        this(false);
    }

    /**
     * @param statementStats whether to load {@code pg_stat_statements} (plain statements only, no
     *     utility ones), read by {@link #statementStats()}
     */
    BenchDatabase(boolean statementStats) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setServerConfig("max_connections", "200");
        if (statementStats) {
            builder.setServerConfig("shared_preload_libraries", "pg_stat_statements")
                    .setServerConfig("pg_stat_statements.track_utility", "off");
        }
        postgres = builder.start();
        if (statementStats) {
            try (Connection c = postgres.getPostgresDatabase().getConnection();
                    Statement s = c.createStatement()) {
                s.execute("create extension if not exists pg_stat_statements");
            } catch (SQLException e) {
                throw new IOException("pg_stat_statements did not load", e);
            }
        }
    }

    /** Forgets what {@code pg_stat_statements} counted so far. */
    void resetStatementStats() throws SQLException {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("select pg_stat_statements_reset()");
        }
    }

    /**
     * Statements {@code pg_stat_statements} counted since its last reset, those reading or resetting
     * it left out; NaN when it is not loaded.
     */
    double statementStats() {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select coalesce(sum(calls), 0) from pg_stat_statements"
                        + " where query not ilike '%pg_stat_statements%'")) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            return Double.NaN;
        }
    }

    /** A fresh pool of {@code size} connections for one instance; closed by {@link #closePools}. */
    DataSource pool(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
        config.setPoolName(name);
        config.setMaximumPoolSize(size);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        return pool;
    }

    /**
     * Closes every pool: their backends exit, which flushes their statistics, so that a
     * {@link #commits} read afterwards counts every transaction they ran.
     */
    void closePools() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }

    /** Transactions committed in the database so far, from {@code pg_stat_database}. */
    long commits() throws SQLException {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("select pg_stat_clear_snapshot()");
            try (ResultSet r =
                    s.executeQuery("select xact_commit from pg_stat_database where datname = current_database()")) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    @Override
    public void close() throws IOException {
        closePools();
        postgres.close();
    }
}
