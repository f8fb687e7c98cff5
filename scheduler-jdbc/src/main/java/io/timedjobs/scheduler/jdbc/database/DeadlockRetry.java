package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Not API. Stateless, any thread; used by the dialects ({@link JdbcDialect#update}, and MariaDB's)
 * only: when a statement, or work of several, that lost a deadlock (InnoDB's, or
 * PostgreSQL's) runs again, and the transaction of its own that such work runs in, at READ
 * COMMITTED (MariaDB).
 *
 * <p>A deadlock (error 1213) rolls back the whole transaction: work that ran alone (no transaction
 * of the caller's) is run again, a bounded number of times; work within a transaction fails, for
 * the transaction's owner to decide.
 */
public final class DeadlockRetry {

    /** Error code of a lost deadlock on both servers, and its SQL state. */
    private static final int DEADLOCK = 1213;

    private static final String DEADLOCK_STATE = "40001";

    /** PostgreSQL's SQL state of a lost deadlock. */
    private static final String POSTGRES_DEADLOCK_STATE = "40P01";

    /** Runs of a statement that lost a deadlock, in all. */
    private static final int DEADLOCK_ATTEMPTS = 3;

    private DeadlockRetry() {}

    /** Work on one connection within one transaction. */
    @FunctionalInterface
    public interface InTransaction<T> {
        T run(Session session) throws SQLException;
    }

    /**
     * A connection within a transaction, whose statements wait at most the template's query timeout
     * (as the template's own statements do) rather than InnoDB's lock wait timeout.
     */
    public record Session(Connection connection, int timeoutSeconds) {
        public PreparedStatement prepare(String sql) throws SQLException {
            PreparedStatement statement = connection.prepareStatement(sql);
            if (timeoutSeconds > 0) {
                statement.setQueryTimeout(timeoutSeconds);
            }
            return statement;
        }
    }

    /**
     * Runs work on one connection in one transaction: the caller's if the connection is in one (then
     * it neither commits nor retries), else one of its own, committed, and run again after a lost
     * deadlock.
     */
    public static <T> T retryingDeadlocks(JdbcOperations jdbc, InTransaction<T> work) {
        int timeout = jdbc instanceof JdbcTemplate template ? template.getQueryTimeout() : -1;
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbc.execute(
                        (ConnectionCallback<T>) connection -> inTransaction(new Session(connection, timeout), work));
            } catch (PessimisticLockingFailureException lockFailure) {
                if (!retriable(lockFailure, attempt)) {
                    throw lockFailure;
                }
            }
        }
    }

    /**
     * Runs work in the connection's transaction if it has one, else in its own at READ COMMITTED: there
     * a locking read locks the rows it returns and no gaps, so that a claim's update does not wait for
     * the gap locks of another instance's claim in the same index, nor an insert for either (InnoDB's
     * default REPEATABLE READ locks gaps). Set for the next transaction only, so nothing needs undoing.
     */
    private static <T> T inTransaction(Session session, InTransaction<T> work) throws SQLException {
        Connection connection = session.connection();
        if (!connection.getAutoCommit()) {
            return work.run(session);
        }
        connection.setAutoCommit(false);
        try {
            try (Statement isolation = connection.createStatement()) {
                isolation.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
            }
            T result = work.run(session);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException failure) {
            try {
                connection.rollback();
            } catch (SQLException rollback) {
                failure.addSuppressed(rollback);
            }
            throw failure;
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /**
     * Whether a statement that failed on a lock runs again: only a lost deadlock (a lock wait timeout
     * has already waited long enough), only outside a Spring-managed transaction of the caller's (the
     * deadlock rolled all of it back, and a retry would run the rest alone), a bounded number of times.
     */
    public static boolean retriable(RuntimeException lockFailure, int attempt) {
        String state = sqlState(lockFailure);
        boolean deadlock = errorCode(lockFailure) == DEADLOCK
                || DEADLOCK_STATE.equals(state)
                || POSTGRES_DEADLOCK_STATE.equals(state);
        return deadlock
                && attempt < DEADLOCK_ATTEMPTS
                && !TransactionSynchronizationManager.isActualTransactionActive();
    }

    private static @Nullable String sqlState(RuntimeException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getSQLState();
            }
        }
        return null;
    }

    /** Returns the vendor's error code of the first {@link SQLException} among the causes, or 0. */
    static int errorCode(RuntimeException failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql) {
                return sql.getErrorCode();
            }
        }
        return 0;
    }
}
