package io.timedjobs.benchmarks.cluster;

import com.zaxxer.hikari.HikariConfig;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Not thread-safe, used by the benchmark thread only: one embedded PostgreSQL for a whole benchmark
 * run, the default {@link BenchDatabase}, and the only one with {@code pg_stat_statements}.
 */
final class PostgresBenchDatabase extends BenchDatabase {

    private final EmbeddedPostgres postgres;

    PostgresBenchDatabase() throws IOException {
        this(false);
    }

    /**
     * @param statementStats whether to load {@code pg_stat_statements} (plain statements only, no
     *     utility ones), read by {@link #statementStats()}
     */
    PostgresBenchDatabase(boolean statementStats) throws IOException {
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

    @Override
    Kind kind() {
        return Kind.POSTGRESQL;
    }

    @Override
    void connect(HikariConfig config) {
        config.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
    }

    @Override
    Connection adminConnection() throws SQLException {
        return postgres.getPostgresDatabase().getConnection();
    }

    /**
     * Transactions committed in the database so far, from {@code pg_stat_database}: read-only ones
     * too, as every statement outside a transaction block is one.
     */
    @Override
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
    void stop() throws IOException {
        postgres.close();
    }
}
