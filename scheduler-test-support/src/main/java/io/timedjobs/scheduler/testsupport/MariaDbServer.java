package io.timedjobs.scheduler.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; for tests: a real MariaDB server, Debian's {@code mariadb-server} package, started
 * once per test JVM on a temporary data directory and a free loopback port, and stopped when the
 * JVM exits. Each caller gets a database of its own. Where no server is installed, {@link
 * #unavailableReason()} says why, for the tests to skip with that message.
 *
 * <p>The server runs in a zone that is neither UTC nor the JVM's usual one ({@link #SERVER_ZONE}),
 * so that any instant moved by a session or server time zone shows up in the tests.
 */
public final class MariaDbServer {

    /** The server's {@code --default-time-zone}: an offset, which needs no zone tables. */
    public static final String SERVER_ZONE = "+05:30";

    /** The user every database is reachable with, without a password, over TCP on loopback. */
    public static final String USER = "root";

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private static @Nullable MariaDbServer shared;

    private static @Nullable String unavailable;

    private final Process process;
    private final Path dataDirectory;
    private final int port;

    private MariaDbServer(Process process, Path dataDirectory, int port) {
        this.process = process;
        this.dataDirectory = dataDirectory;
        this.port = port;
    }

    /**
     * Returns why no MariaDB server can be had on this machine, or null when one runs (it is
     * started by this call, once).
     */
    public static synchronized @Nullable String unavailableReason() {
        if (shared == null && unavailable == null) {
            try {
                shared = start();
            } catch (RuntimeException | IOException e) {
                unavailable = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unavailable = "interrupted while starting MariaDB";
            }
        }
        return unavailable;
    }

    /** Returns the shared server, starting it on first use; fails where none can be had. */
    public static synchronized MariaDbServer shared() {
        String reason = unavailableReason();
        if (reason != null) {
            throw new IllegalStateException(reason);
        }
        return java.util.Objects.requireNonNull(shared);
    }

    /** Returns the JDBC URL of a new, empty database on this server (utf8mb4). */
    public String newDatabaseUrl() {
        String name = "timed_jobs_test_" + COUNTER.incrementAndGet();
        // Its own connect timeout: a pool in the same JVM may have set DriverManager's login timeout
        // to a second, which a busy machine's handshake can exceed.
        try (Connection connection = DriverManager.getConnection(url("") + "?connectTimeout=30000", USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + name + " on MariaDB", e);
        }
        return url(name);
    }

    /** Returns the JDBC URL of a database on this server, for this JVM or a child process. */
    public String url(String database) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + database;
    }

    /** Returns the port the server listens on, on 127.0.0.1. */
    public int port() {
        return port;
    }

    private static MariaDbServer start() throws IOException, InterruptedException {
        Path server = find("mariadbd", "/usr/sbin/mariadbd", "/usr/libexec/mariadbd");
        Path installDb = find("mariadb-install-db", "/usr/bin/mariadb-install-db");
        if (server == null || installDb == null) {
            throw new IllegalStateException("MariaDB is not installed (no mariadbd or mariadb-install-db; "
                    + "on Debian: apt-get install mariadb-server)");
        }
        Path data = Files.createTempDirectory("timed-jobs-mariadb-");
        Path log = data.resolve("install.log");
        List<String> install = new ArrayList<>(List.of(
                installDb.toString(),
                "--no-defaults",
                "--datadir=" + data.resolve("data"),
                "--auth-root-authentication-method=normal",
                "--skip-test-db"));
        if (isRoot()) {
            install.add("--user=root");
        }
        Process installer = new ProcessBuilder(install)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!installer.waitFor(TestDelays.scaled(Duration.ofMinutes(2)).toSeconds(), TimeUnit.SECONDS)
                || installer.exitValue() != 0) {
            installer.destroyForcibly();
            throw new IllegalStateException("mariadb-install-db failed; see " + log);
        }
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(
                server.toString(),
                "--no-defaults",
                "--datadir=" + data.resolve("data"),
                "--socket=" + data.resolve("mysqld.sock"),
                "--pid-file=" + data.resolve("mysqld.pid"),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--default-time-zone=" + SERVER_ZONE,
                "--character-set-server=utf8mb4",
                "--collation-server=utf8mb4_bin",
                "--max-connections=500",
                "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=2",
                "--skip-log-bin"));
        if (isRoot()) {
            command.add("--user=root");
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(data.resolve("server.log").toFile())
                .start();
        MariaDbServer started = new MariaDbServer(process, data, port);
        Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "mariadb-stop"));
        started.awaitReady();
        return started;
    }

    /** Waits until the server accepts a connection: the event itself, checked every 100 ms. */
    private void awaitReady() throws InterruptedException {
        long deadline =
                System.nanoTime() + TestDelays.scaled(Duration.ofSeconds(60)).toNanos();
        SQLException last = null;
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new IllegalStateException("mariadbd exited at start; see " + dataDirectory.resolve("server.log"));
            }
            try (Connection ignored = DriverManager.getConnection(url(""), USER, "")) {
                return;
            } catch (SQLException e) {
                last = e;
            }
            process.waitFor(100, TimeUnit.MILLISECONDS); // returns at once if the server dies
        }
        stop();
        throw new IllegalStateException("MariaDB did not accept connections within 60 s: " + last);
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dataDirectory)) {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory left behind harms nothing
        }
    }

    private static @Nullable Path find(String name, String... usual) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        for (String candidate : usual) {
            if (Files.isExecutable(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        return null;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
