package io.timedjobs.scheduler.testsupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * For tests, thread-safe: one embedded PostgreSQL per test JVM, started on first use and stopped
 * when the JVM exits, with a fresh database per caller; fresh in-memory H2 databases; and fresh
 * databases on the shared {@link MariaDbServer}.
 *
 * <p>Its libraries (io.zonky's embedded PostgreSQL, HikariCP, H2, spring-jdbc) are optional
 * dependencies of this module: a module that calls it declares them in its own test scope, with
 * the PostgreSQL binaries and driver, and MariaDB Connector/J for {@link Kind#MARIADB}.
 */
public final class TestDatabases {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private static @Nullable EmbeddedPostgres postgres;

    private TestDatabases() {}

    /** The databases the module supports, for parameterized tests. */
    public enum Kind {
        POSTGRESQL,
        H2,
        /**
         * A real MariaDB server ({@link MariaDbServer}); where none can be had, {@link #newDatabase()}
         * aborts the calling test, which JUnit reports as skipped with the reason.
         */
        MARIADB;

        /** Returns a new, empty database of this kind. */
        public DataSource newDatabase() {
            return switch (this) {
                case POSTGRESQL -> newPostgres();
                case H2 -> newH2();
                case MARIADB -> newMariaDb();
            };
        }

        /**
         * Returns the JDBC URL of a new, empty database of this kind, its user in the URL, for other
         * processes; H2's in-memory databases have none.
         */
        public String newDatabaseUrl() {
            return switch (this) {
                case POSTGRESQL ->
                    "jdbc:postgresql://localhost:" + postgresPort() + "/" + newPostgresDatabaseName()
                            + "?user=postgres";
                case MARIADB -> {
                    assumeMariaDb();
                    yield MariaDbServer.shared().newDatabaseUrl() + "?user=" + MariaDbServer.USER;
                }
                case H2 -> throw new UnsupportedOperationException("H2 databases live in one JVM");
            };
        }
    }

    /**
     * Returns a new, empty database on the shared MariaDB server; aborts the calling test (skipped,
     * with the reason) where no server can be had.
     */
    public static DataSource newMariaDb() {
        assumeMariaDb();
        return pooled(MariaDbServer.shared().newDatabaseUrl(), MariaDbServer.USER, 1000);
    }

    /** Aborts the calling test, reported as skipped with the reason, where no MariaDB server can be had. */
    public static void assumeMariaDb() {
        String reason = MariaDbServer.unavailableReason();
        Assumptions.assumeTrue(reason == null, () -> "MariaDB tests skipped: " + reason);
    }

    /** Returns a new, empty database on the shared embedded PostgreSQL. */
    public static DataSource newPostgres() {
        EmbeddedPostgres server = server();
        String name = "timed_jobs_test_" + COUNTER.incrementAndGet();
        new JdbcTemplate(server.getPostgresDatabase()).execute("CREATE DATABASE " + name);
        return pooled(server.getJdbcUrl("postgres", name));
    }

    /**
     * Returns a small pool on a JDBC URL, which gives up on a connection after 1 s, so that a
     * database that is down fails calls quickly instead of holding them.
     */
    public static HikariDataSource pooled(String url) {
        return pooled(url, 1000);
    }

    /**
     * Returns a small pool on a JDBC URL that waits up to the given time for a connection: for
     * processes that start while the machine is busy and test no outage.
     */
    public static HikariDataSource pooled(String url, long connectionTimeoutMillis) {
        return pooled(url, url.startsWith("jdbc:mariadb:") ? MariaDbServer.USER : "postgres", connectionTimeoutMillis);
    }

    /** As {@link #pooled(String, long)}, connecting as the given user without a password. */
    public static HikariDataSource pooled(String url, String user, long connectionTimeoutMillis) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(8);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectionTimeoutMillis);
        config.setValidationTimeout(500);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** Returns a new, empty in-memory H2 database, kept until the JVM exits. */
    public static DataSource newH2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:timed_jobs_test_" + COUNTER.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        dataSource.setUser("sa");
        return dataSource;
    }

    /** Returns the shared server's port, for URLs given to other processes. */
    public static int postgresPort() {
        return server().getPort();
    }

    /** Returns the name of a fresh database on the shared server, for URLs given to other processes. */
    public static String newPostgresDatabaseName() {
        String name = "timed_jobs_test_" + COUNTER.incrementAndGet();
        new JdbcTemplate(server().getPostgresDatabase()).execute("CREATE DATABASE " + name.toLowerCase(Locale.ROOT));
        return name;
    }

    private static synchronized EmbeddedPostgres server() {
        if (postgres == null) {
            try {
                EmbeddedPostgres started = EmbeddedPostgres.builder().start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        started.close();
                    } catch (IOException ignored) {
                        // the JVM is exiting
                    }
                }));
                postgres = started;
            } catch (IOException ex) {
                throw new UncheckedIOException("Embedded PostgreSQL did not start", ex);
            }
        }
        return postgres;
    }
}
