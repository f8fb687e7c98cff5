package io.timedjobs.benchmarks.cluster;

import com.zaxxer.hikari.HikariConfig;
import io.timedjobs.scheduler.testsupport.MariaDbServer;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Not thread-safe, used by the benchmark thread only: a MariaDB server private to the run ({@link
 * MariaDbServer}, Debian's {@code mariadbd} on a temporary directory, stopped when the JVM exits)
 * with one fresh database, user {@code root} without a password.
 *
 * <p>Commits are InnoDB's own transaction counters, server-wide (the server serves this run only):
 * read-write, read-only and autocommitted read-only transactions, less rollbacks, which InnoDB counts
 * in the first three as well. That is what PostgreSQL's {@code xact_commit} counts: one per
 * transaction, read-only ones included. The status variables do not fit: {@code Handler_commit}
 * counts each statement inside a transaction and the transaction's end besides (1,001 for a
 * transaction of 1,000 inserts), and {@code Com_commit} counts explicit {@code COMMIT}s only, not
 * autocommitted statements. Statements that touch no table ({@code SELECT 1}) count nowhere.
 */
final class MariaDbBenchDatabase extends BenchDatabase {

    /** The counters summed, those that InnoDB keeps only once switched on. */
    private static final String[] COMMITTED = {"trx_rw_commits", "trx_ro_commits", "trx_nl_ro_commits"};

    private static final String ROLLED_BACK = "trx_rollbacks";

    private final String url;

    MariaDbBenchDatabase() throws IOException {
        String unavailable = MariaDbServer.unavailableReason();
        if (unavailable != null) {
            throw new IOException(PROPERTY + "=mariadb needs a MariaDB server: " + unavailable);
        }
        url = MariaDbServer.shared().newDatabaseUrl();
        try (Connection c = adminConnection();
                Statement s = c.createStatement()) {
            for (String counter : COMMITTED) {
                s.execute("set global innodb_monitor_enable = '" + counter + "'");
            }
            s.execute("set global innodb_monitor_enable = '" + ROLLED_BACK + "'");
        } catch (SQLException e) {
            throw new IOException("InnoDB's transaction counters could not be switched on", e);
        }
    }

    @Override
    Kind kind() {
        return Kind.MARIADB;
    }

    @Override
    void connect(HikariConfig config) {
        config.setJdbcUrl(url);
        config.setUsername(MariaDbServer.USER);
        config.setPassword("");
    }

    @Override
    Connection adminConnection() throws SQLException {
        return DriverManager.getConnection(url, MariaDbServer.USER, "");
    }

    /** Transactions committed on the server so far, from {@code information_schema.innodb_metrics}. */
    @Override
    long commits() throws SQLException {
        // information_schema is no InnoDB table: this read starts no transaction of its own.
        try (Connection c = adminConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select coalesce(sum(case when name = '" + ROLLED_BACK
                        + "' then -`count` else `count` end), 0) from information_schema.innodb_metrics"
                        + " where name in ('" + String.join("', '", COMMITTED) + "', '" + ROLLED_BACK + "')")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** The server is shared by the JVM and stops when it exits; the database is left to it. */
    @Override
    void stop() {}
}
