package io.timedjobs.scheduler.jdbc.durable;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Test fixture; any thread. Fresh databases with the schema applied: H2 in memory, and PostgreSQL on
 * one embedded server shared by every test of the module (started on first use, stopped when the JVM
 * exits), one new database per call.
 */
final class TestDatabases {

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static EmbeddedPostgres postgres;

    private TestDatabases() {}

    static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:durable" + SEQUENCE.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
        apply(dataSource, "h2");
        return dataSource;
    }

    static DataSource postgres() {
        String name = "durable" + SEQUENCE.incrementAndGet();
        try (Connection connection = server().getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(server().getJdbcUrl("postgres", name));
        apply(dataSource, "postgresql");
        return dataSource;
    }

    static synchronized EmbeddedPostgres server() {
        if (postgres == null) {
            try {
                postgres = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            EmbeddedPostgres started = postgres;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.close();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }));
        }
        return postgres;
    }

    static DurableTaskSql sql(boolean postgres) {
        return new DurableTaskSql(postgres, "timed_jobs_tasks", postgres ? "clock_timestamp()" : "CURRENT_TIMESTAMP");
    }

    private static void apply(DataSource dataSource, String database) {
        String path = "/io/timedjobs/scheduler/jdbc/schema/" + database + "/V1__timed_jobs.sql";
        String script;
        try (InputStream in = TestDatabases.class.getResourceAsStream(path)) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            for (String part : script.replaceAll("(?m)^--.*$", "").split(";")) {
                if (!part.isBlank()) {
                    statement.execute(part);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
