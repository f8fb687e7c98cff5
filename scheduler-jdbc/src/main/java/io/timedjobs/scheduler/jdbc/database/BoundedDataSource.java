package io.timedjobs.scheduler.jdbc.database;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Not API: used by {@link ClusterDatabase}. Thread-safe: the application's data source as the
 * scheduler's threads see it, with every wait on the database bounded by the {@code
 * timed-jobs.cluster.database-timeout}, whatever the pool's own timeouts.
 *
 * <p>A connection is acquired on a small pool of daemon threads while the caller waits at most the
 * bound; a caller that gives up leaves the acquisition to finish there, and a connection that
 * arrives after it gave up is closed at once (back to the pool). Those threads are few ({@link
 * #MAX_PENDING}: an acquisition beyond them fails at once) and end when idle, so an outage can
 * neither leak threads nor connections. Each connection handed out carries the bound as its
 * network timeout (a read that waits longer breaks the connection, which the pool then drops),
 * restored to its previous value when the caller closes it, so that the pool's other users never
 * see it.
 */
final class BoundedDataSource extends DelegatingDataSource {

    /**
     * Acquisitions that may wait at once. A healthy pool hands out a connection in microseconds, so
     * this many at once means threads of ours are already stuck on the database: failing the next
     * at once is right. Far above the workers of any sane configuration (scheduler, heartbeat,
     * durable engine), so that load alone never reaches it.
     */
    static final int MAX_PENDING = 256;

    private static final Executor SAME_THREAD = Runnable::run;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Duration timeout;
    private final int timeoutMillis;
    private final ThreadPoolExecutor acquirers;

    BoundedDataSource(DataSource target, Duration timeout) {
        super(Objects.requireNonNull(target, "target"));
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timed-jobs.cluster.database-timeout must be positive, was " + timeout);
        }
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        this.acquirers = new ThreadPoolExecutor(0, MAX_PENDING, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), job -> {
            Thread thread = new Thread(job, "timed-jobs-connect-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public Connection getConnection() throws SQLException {
        return bounded(target -> target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return bounded(target -> target.getConnection(username, password));
    }

    private Connection bounded(Acquisition acquisition) throws SQLException {
        DataSource target = obtainTargetDataSource();
        CompletableFuture<Connection> pending;
        try {
            pending = CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return acquisition.acquire(target);
                        } catch (SQLException ex) {
                            throw new CompletionException(ex);
                        }
                    },
                    acquirers);
        } catch (RejectedExecutionException ex) {
            throw new SQLTransientConnectionException(
                    MAX_PENDING + " connection requests of Timed Jobs already wait; the database seems away", ex);
        }
        Connection connection;
        try {
            connection = pending.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            // Runs at once if the connection came in the meantime: either way it goes back to the pool.
            pending.thenAccept(BoundedDataSource::closeQuietly);
            throw new SQLTransientConnectionException(
                    "No database connection within timed-jobs.cluster.database-timeout (" + timeout + ")", ex);
        } catch (InterruptedException ex) {
            pending.thenAccept(BoundedDataSource::closeQuietly);
            Thread.currentThread().interrupt();
            throw new SQLTransientConnectionException("Interrupted while waiting for a database connection", ex);
        } catch (ExecutionException ex) {
            Throwable cause = ex.getCause() instanceof CompletionException wrapped && wrapped.getCause() != null
                    ? wrapped.getCause()
                    : ex.getCause();
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            throw new SQLTransientConnectionException("Database connection failed", cause);
        }
        return withNetworkTimeout(connection);
    }

    /** Bounds every read on the connection until the caller closes it, then restores the pool's value. */
    private Connection withNetworkTimeout(Connection connection) throws SQLException {
        int previous;
        try {
            previous = connection.getNetworkTimeout();
            connection.setNetworkTimeout(SAME_THREAD, timeoutMillis);
        } catch (SQLException | UnsupportedOperationException | AbstractMethodError ex) {
            return connection; // a driver without network timeouts: the query timeout still bounds statements
        }
        InvocationHandler handler = new RestoringHandler(connection, previous);
        return (Connection) Proxy.newProxyInstance(
                BoundedDataSource.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException ex) {
            // it goes back to the pool or is dropped; nothing else to do with it
        }
    }

    @Override
    public String toString() {
        return "BoundedDataSource[" + timeout + ", " + getTargetDataSource() + "]";
    }

    @FunctionalInterface
    private interface Acquisition {
        Connection acquire(DataSource target) throws SQLException;
    }

    /** Passes every call through, and restores the network timeout before the connection is closed. */
    private static final class RestoringHandler implements InvocationHandler {
        private final Connection target;
        private final int previousTimeout;

        RestoringHandler(Connection target, int previousTimeout) {
            this.target = target;
            this.previousTimeout = previousTimeout;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "close" -> {
                    try {
                        if (!target.isClosed()) {
                            target.setNetworkTimeout(SAME_THREAD, previousTimeout);
                        }
                    } catch (SQLException ex) {
                        // a broken connection: the pool drops it on close
                    }
                    target.close();
                    return null;
                }
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "unwrap" -> {
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return proxy;
                    }
                }
                case "isWrapperFor" -> {
                    if (((Class<?>) args[0]).isInstance(proxy)) {
                        return true;
                    }
                }
                default -> {}
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException ex) {
                throw ex.getTargetException();
            }
        }
    }
}
