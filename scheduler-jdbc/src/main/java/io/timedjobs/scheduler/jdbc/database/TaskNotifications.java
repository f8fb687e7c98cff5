package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Not API: used by durable tasks and clustered jobs. Thread-safe; started and stopped by the part
 * that owns it. Listens, on one connection of its own, to one channel of notifications that other
 * instances send (PostgreSQL's {@code LISTEN}): a task scheduled that this instance may have to
 * claim soon, or a fire recorded; hands each payload to its owner on its own daemon thread. Waiting for a notification sends
 * nothing to the database: the connection only reads its socket.
 *
 * <p>Where the database or its driver cannot notify, or the connection is lost, {@link
 * #listening()} is false, and the engine polls at every poll interval, as without notifications.
 * After a lost connection it reconnects every poll interval; once it listens again it calls {@code
 * reconnected}, for the engine to poll at once what it may have missed while deaf. {@link #none()}
 * never listens: its owner then polls, as where the database cannot notify.
 */
public final class TaskNotifications {

    private static final Log logger = LogFactory.getLog(TaskNotifications.class);

    /** The longest wait on the socket at a time, so that stop() is seen within it. */
    private static final int WAIT_MILLIS = 500;

    /** PostgreSQL's longest identifier, in bytes: a longer channel name is cut there by the server. */
    private static final int MAX_CHANNEL_BYTES = 63;

    /** The notifications that never listen. */
    private static final TaskNotifications NONE =
            new TaskNotifications(null, "", "", "nothing", Duration.ZERO, payloads -> {}, () -> {});

    /** Null only in {@link #NONE}, which never starts a thread. */
    private final @Nullable ClusterDatabase database;

    private final String channel;
    private final Duration retry;
    private final Consumer<List<String>> notified;
    private final Runnable reconnected;
    private final String name;
    private final String subject;

    private volatile boolean listening;
    private volatile boolean stopped = true;
    private @Nullable Thread thread;

    private TaskNotifications(
            @Nullable ClusterDatabase database,
            String channel,
            String name,
            String subject,
            Duration retry,
            Consumer<List<String>> notified,
            Runnable reconnected) {
        this.database = database;
        this.channel = channel;
        this.name = name;
        this.subject = subject;
        this.retry = retry;
        this.notified = notified;
        this.reconnected = reconnected;
    }

    /** Notifications that never listen: {@link #listening()} stays false, start and stop do nothing. */
    public static TaskNotifications none() {
        return NONE;
    }

    /** Whether this database can notify: only PostgreSQL with its own driver can. */
    public static boolean available(ClusterDatabase database) {
        return database.dialect().notifySql() != null && PostgresListen.driverPresent();
    }

    /**
     * Notifications on this database, or {@link #none()} where it has none ({@link
     * #available(ClusterDatabase)}).
     *
     * @param name the instance's name, for the thread's and the log's
     * @param retry how long to wait before reconnecting after a lost connection
     * @param notified called on the listening thread with the payloads received together (at least
     *     one): many tasks scheduled in one transaction arrive at once, and are handled at once
     * @param reconnected called on the listening thread each time it listens again after a loss
     */
    public static TaskNotifications of(
            ClusterDatabase database,
            String name,
            Duration retry,
            Consumer<List<String>> notified,
            Runnable reconnected) {
        return of(
                database,
                channel(database.tables()),
                name,
                "durable tasks scheduled elsewhere",
                retry,
                notified,
                reconnected);
    }

    /**
     * As {@link #of(ClusterDatabase, String, Duration, Consumer, Runnable)}, on {@code channel}, its
     * log lines saying what this instance hears of ({@code subject}).
     */
    public static TaskNotifications of(
            ClusterDatabase database,
            String channel,
            String name,
            String subject,
            Duration retry,
            Consumer<List<String>> notified,
            Runnable reconnected) {
        if (!available(database)) {
            return NONE;
        }
        return new TaskNotifications(database, channel, name, subject, retry, notified, reconnected);
    }

    /** The channel on which the fires recorded in these tables are announced: the fires table's name. */
    public static String firesChannel(TableNames tables) {
        String table = tables.fires();
        return table.length() <= MAX_CHANNEL_BYTES ? table : table.substring(0, MAX_CHANNEL_BYTES);
    }

    /** The channel on which the tasks of these tables are announced: the tasks table's name. */
    public static String channel(TableNames tables) {
        String table = tables.tasks();
        return table.length() <= MAX_CHANNEL_BYTES ? table : table.substring(0, MAX_CHANNEL_BYTES);
    }

    /** Whether a notification sent now would reach this instance. */
    public boolean listening() {
        return listening;
    }

    /** Starts listening in the background; idempotent. */
    public synchronized void start() {
        if (database == null || thread != null) {
            return;
        }
        stopped = false;
        Thread started = new Thread(this::listenUntilStopped, "timed-jobs-listen-" + channel + "-" + name);
        started.setDaemon(true);
        thread = started;
        started.start();
    }

    /** Stops listening and closes the connection; idempotent. */
    public void stop() {
        if (database == null) {
            return; // none(): never started
        }
        Thread running;
        synchronized (this) {
            running = thread;
            thread = null;
            stopped = true;
        }
        if (running == null) {
            return;
        }
        running.interrupt();
        try {
            running.join(WAIT_MILLIS * 4L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void listenUntilStopped() {
        ClusterDatabase database = Objects.requireNonNull(this.database, "started only with a database");
        boolean lostOnce = false;
        while (!stopped) {
            try (Connection connection = database.boundedDataSource().getConnection()) {
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + quoted(channel));
                }
                listening = true;
                if (lostOnce) {
                    logger.info("Instance " + name + " listens for " + subject + " again");
                }
                reconnected.run();
                while (!stopped) {
                    List<String> payloads = PostgresListen.await(connection, WAIT_MILLIS);
                    if (!payloads.isEmpty()) {
                        deliver(payloads);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (stopped) {
                    break;
                }
                if (!lostOnce || listening) {
                    logger.warn(
                            "Instance " + name + " no longer hears of " + subject + " until it listens again"
                                    + " (it polls meanwhile, every poll interval): " + e + ". If this recurs while"
                                    + " the database is up, something between this instance and PostgreSQL drops"
                                    + " or refuses its listening connection (a proxy such as PgBouncer in"
                                    + " transaction mode, or a firewall's idle timeout)",
                            logger.isDebugEnabled() ? e : null);
                }
                lostOnce = true;
            } finally {
                listening = false;
            }
            pause();
        }
    }

    private void deliver(List<String> payloads) {
        try {
            notified.accept(payloads);
        } catch (RuntimeException e) {
            logger.warn(payloads.size() + " notifications of " + subject + " could not be handled on " + name, e);
        }
    }

    private void pause() {
        long until = System.nanoTime() + retry.toNanos();
        synchronized (this) {
            while (!stopped) {
                long left = until - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    return; // stop() interrupts
                }
            }
        }
    }

    private static String quoted(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** PostgreSQL's driver, touched only once it is known to be there. */
    private static final class PostgresListen {

        static boolean driverPresent() {
            try {
                Class.forName("org.postgresql.PGConnection", false, TaskNotifications.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        static List<String> await(Connection connection, int millis) throws SQLException {
            org.postgresql.PGNotification[] received =
                    connection.unwrap(org.postgresql.PGConnection.class).getNotifications(millis);
            if (received == null || received.length == 0) {
                return List.of();
            }
            String[] payloads = new String[received.length];
            for (int i = 0; i < received.length; i++) {
                payloads[i] = Objects.requireNonNullElse(received[i].getParameter(), "");
            }
            return List.of(payloads);
        }
    }
}
