package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.BatchPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe; used by {@link DurableTaskStore} only. The fenced starts and completions of a group of
 * tasks, each task fenced on its own, in one round trip: where the dialect binds arrays of ids
 * (PostgreSQL), one statement for the whole group that returns the id and version of each task it
 * let through; else a JDBC batch of one statement per task whose counts tell them apart.
 *
 * <p>The ids and versions are bound as typed arrays, never as their text: a cast of text to an
 * array is evaluated again for each row the plan reads, and a group's statement then spent seconds
 * parsing the same text (a drain's groups ran past the database timeout).
 */
final class GroupStatements {

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final DurableTaskSql sql;

    /** A transaction on the template's data source, for a batch of starts; null without one. */
    private final @Nullable TransactionTemplate transaction;

    GroupStatements(JdbcTemplate jdbc, JdbcDialect dialect, DurableTaskSql sql) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.sql = sql;
        DataSource dataSource = jdbc.getDataSource();
        this.transaction =
                dataSource == null ? null : new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    /**
     * The fenced completions of several one-off tasks in one round trip (one statement where the
     * dialect binds arrays, else a batch), in the caller's transaction if any; returns each one's
     * count, in the order of {@code tasks}, 1 where accepted.
     *
     * @throws UnknownRowCounts when the driver did not say which rows of a batch changed (the caller
     *     rolls back)
     */
    int[] completeOnceAll(List<ClaimedTask> tasks) {
        Statement group = sql.completeOnceGroup();
        if (group != null) {
            return inOneStatement(group.sql(), tasks, (ids, versions) -> binds(group.args(ids, versions, ids)));
        }
        return batch(
                sql.completeOnce().sql(),
                tasks.size(),
                i -> binds(tasks.get(i).id(), tasks.get(i).version()));
    }

    /**
     * The fenced starts of several claimed tasks (see {@link DurableTaskStore#start}) in one round
     * trip and one commit: one statement where the dialect binds arrays, else a batch in one
     * transaction. Returns each one's count, in the order of {@code tasks}, 1 where it may run.
     *
     * @throws UnknownRowCounts when the driver did not say which rows of a batch changed (nothing was
     *     written)
     */
    int[] startAll(List<ClaimedTask> tasks, String owner, Duration lease) {
        if (tasks.isEmpty()) {
            return new int[0];
        }
        Statement group = sql.startGroup();
        if (group != null) { // one statement, so one commit without a transaction of its own
            return inOneStatement(
                    group.sql(), tasks, (ids, versions) -> binds(group.args(lease, ids, versions, ids, owner)));
        }
        TransactionTemplate transaction =
                Objects.requireNonNull(this.transaction, "a store on a template without a data source");
        int[] counts;
        try {
            counts = transaction.execute(status -> batch(
                    sql.start().sql(),
                    tasks.size(),
                    i -> binds(lease, tasks.get(i).id(), owner, tasks.get(i).version())));
        } catch (TransactionException e) {
            throw new DataAccessResourceFailureException("Timed Jobs could not start a group of durable tasks", e);
        }
        return Objects.requireNonNull(counts, "counts");
    }

    /**
     * Runs a group's statement, which returns the id and version of each task it let through, and
     * returns each task's count in the order of {@code tasks}. One entry per task is bound: a task
     * claimed again (a new version of the same id) can only go through under its latest claim, so
     * its older claims are left out and refused, as in a batch; and of the same claim listed twice,
     * only the first counts, as in a batch.
     */
    private int[] inOneStatement(
            String statement, List<ClaimedTask> tasks, BiFunction<long[], long[], List<@Nullable Object>> binds) {
        Map<Long, Long> latest = new LinkedHashMap<>();
        tasks.forEach(task -> latest.merge(task.id(), task.version(), Math::max));
        List<@Nullable Object> values = binds.apply(longs(latest.keySet()), longs(latest.values()));
        Set<String> through = new HashSet<>(jdbc.query(
                statement, ps -> dialect.bind(ps, values), (rs, row) -> rs.getLong(1) + ":" + rs.getLong(2)));
        int[] counts = new int[tasks.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = through.remove(tasks.get(i).id() + ":" + tasks.get(i).version()) ? 1 : 0;
        }
        return counts;
    }

    private int[] batch(String statement, int size, IntFunction<List<@Nullable Object>> binds) {
        int[] counts = jdbc.batchUpdate(statement, new BatchPreparedStatementSetter() {
            @Override
            public void setValues(PreparedStatement ps, int i) throws SQLException {
                dialect.bind(ps, binds.apply(i));
            }

            @Override
            public int getBatchSize() {
                return size;
            }
        });
        for (int count : counts) {
            if (count < 0) {
                throw new UnknownRowCounts();
            }
        }
        return counts;
    }

    /** Values as an array the dialect binds as one of {@code BIGINT}. */
    private static long[] longs(Collection<Long> values) {
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    /** A batch whose driver answered "done" without the rows each statement changed. */
    static final class UnknownRowCounts extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnknownRowCounts() {
            super("The JDBC driver did not report the rows each statement of a batch changed");
        }
    }

    private static List<@Nullable Object> binds(@Nullable Object... values) {
        return Arrays.asList(values);
    }
}
