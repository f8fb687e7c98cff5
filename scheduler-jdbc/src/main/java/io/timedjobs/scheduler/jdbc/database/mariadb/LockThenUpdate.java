package io.timedjobs.scheduler.jdbc.database.mariadb;

import io.timedjobs.scheduler.jdbc.database.DeadlockRetry;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.RowChange;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.RowMapperResultSetExtractor;

/**
 * Immutable, thread-safe; used by {@link MariaDbDialect} only: its claims and its updates whose
 * rows are read back. Neither MariaDB nor MySQL returns the rows an {@code UPDATE} changed, nor has a row
 * limit in an {@code IN} subquery, so each is a {@code SELECT ... FOR UPDATE} of the ids (with
 * {@code SKIP LOCKED} for a claim), an {@code UPDATE} of those ids and a {@code SELECT} of them, in
 * one transaction on one connection: the caller's, if it has one; else its own at READ COMMITTED,
 * which locks no gaps, run again after a lost deadlock (see {@link DeadlockRetry}).
 */
final class LockThenUpdate {

    /** The dialect whose binds and locking clause the statements use. */
    private final JdbcDialect dialect;

    LockThenUpdate(JdbcDialect dialect) {
        this.dialect = dialect;
    }

    /** As {@link JdbcDialect#claim}: locks at most {@code limit} rows, skipping those locked elsewhere. */
    <T> List<T> claim(
            JdbcOperations jdbc,
            RowChange change,
            List<?> setBinds,
            List<?> conditionBinds,
            int limit,
            RowMapper<T> rows) {
        String lock = "SELECT id FROM " + change.table() + " WHERE " + change.condition() + change.order() + " LIMIT ?"
                + dialect.forUpdateSkipLocked();
        return lockThenUpdate(jdbc, change, lock, JdbcDialect.concat(conditionBinds, List.of(limit)), setBinds, rows);
    }

    /** As {@link JdbcDialect#updateReturning}: locks every row of the condition, waiting for them. */
    <T> List<T> updateReturning(
            JdbcOperations jdbc, RowChange change, List<?> setBinds, List<?> conditionBinds, RowMapper<T> rows) {
        String lock = "SELECT id FROM " + change.table() + " WHERE " + change.condition() + " FOR UPDATE";
        return lockThenUpdate(jdbc, change, lock, conditionBinds, setBinds, rows);
    }

    /**
     * Locks rows by a select of their ids, changes them by id and reads them back, in one transaction:
     * the locks keep every other writer away from those rows between the three statements.
     */
    private <T> List<T> lockThenUpdate(
            JdbcOperations jdbc,
            RowChange change,
            String lock,
            List<?> lockBinds,
            List<?> setBinds,
            RowMapper<T> rows) {
        return DeadlockRetry.retryingDeadlocks(jdbc, session -> {
            List<Long> ids = new ArrayList<>();
            try (PreparedStatement select = session.prepare(lock)) {
                dialect.bind(select, lockBinds);
                try (ResultSet result = select.executeQuery()) {
                    while (result.next()) {
                        ids.add(result.getLong(1));
                    }
                }
            }
            if (ids.isEmpty()) {
                return List.of();
            }
            String byId = " WHERE id IN (" + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")";
            try (PreparedStatement update =
                    session.prepare("UPDATE " + change.table() + " SET " + change.set() + byId)) {
                dialect.bind(update, JdbcDialect.concat(setBinds, ids));
                update.executeUpdate();
            }
            try (PreparedStatement read =
                    session.prepare("SELECT " + change.columns() + " FROM " + change.table() + byId + change.order())) {
                dialect.bind(read, ids);
                try (ResultSet result = read.executeQuery()) {
                    return new RowMapperResultSetExtractor<>(rows).extractData(result);
                }
            }
        });
    }
}
