package io.timedjobs.acceptance;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.tools.Server;
import org.jspecify.annotations.Nullable;

/**
 * Test code only, thread-safe. The databases the applications run on, each a fresh one reached by
 * URL from the applications' JVMs: the embedded PostgreSQL and the MariaDB server of {@link
 * TestDatabases}, and an H2 TCP server in this JVM (the way instances in separate JVMs share one
 * H2, as the guides' sample does). Returns each as the application's command-line arguments.
 */
final class AcceptanceDatabases {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private static @Nullable Server h2;

    private AcceptanceDatabases() {}

    /** The databases the no-WARN run covers. */
    enum Kind {
        POSTGRESQL,
        MARIADB,
        H2
    }

    /**
     * Returns {@code --spring.datasource.*} arguments for a new, empty database of this kind; aborts the
     * calling test (skipped, with why) where MariaDB is not installed.
     */
    static List<String> newDatabase(Kind kind) {
        return switch (kind) {
            case POSTGRESQL -> datasource(TestDatabases.Kind.POSTGRESQL.newDatabaseUrl());
            case MARIADB -> datasource(TestDatabases.Kind.MARIADB.newDatabaseUrl());
            case H2 ->
                List.of(
                        "--spring.datasource.url=jdbc:h2:tcp://127.0.0.1:" + h2Port() + "/mem:acceptance_"
                                + COUNTER.incrementAndGet() + ";DB_CLOSE_DELAY=-1",
                        "--spring.datasource.username=sa");
        };
    }

    /** Returns the URL of a new, empty PostgreSQL database reached through {@code port} on loopback. */
    static String newPostgresUrl(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + TestDatabases.newPostgresDatabaseName() + "?user=postgres";
    }

    /** Returns the embedded PostgreSQL server's port. */
    static int postgresPort() {
        return TestDatabases.postgresPort();
    }

    static List<String> datasource(String url) {
        return List.of("--spring.datasource.url=" + url);
    }

    private static synchronized int h2Port() {
        if (h2 == null) {
            try {
                int port;
                try (ServerSocket socket = new ServerSocket(0)) {
                    port = socket.getLocalPort();
                }
                Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists")
                        .start();
                Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
                h2 = server;
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            } catch (SQLException ex) {
                throw new IllegalStateException("The H2 TCP server did not start", ex);
            }
        }
        return h2.getPort();
    }
}
