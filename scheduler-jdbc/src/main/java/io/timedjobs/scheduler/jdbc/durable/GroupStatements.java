package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe; used by {@link DurableTaskStore} only. The fenced starts and completions of a group of
 * tasks, each task fenced on its own, in one commit: where the database has its own statement for a
 * group (PostgreSQL: the ids and versions bound as arrays, the rows let through returned), that one
 * statement; else, the portable answer, in one transaction: the group's rows locked by id in
 * ascending order and read, the fence decided here for each, and those that pass changed by id.
 *
 * <p>The portable answer is two statements whatever the group's size, on every database and driver:
 * a JDBC batch would be one statement per task, and some drivers (MariaDB Connector/J) answer a
 * batch without the rows each statement changed, so a group could not tell which of its tasks the
 * fence let through. The locks keep every other writer away from the group's rows between the two
 * statements; taken in one order by every group, two groups never wait on each other crosswise.
 *
 * <p>The ids and versions are bound as typed arrays, never as their text: a cast of text to an
 * array is evaluated again for each row the plan reads, and a group's statement then spent seconds
 * parsing the same text (a drain's groups ran past the database timeout).
 */
final class GroupStatements {

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final DurableTaskSql sql;
    private final LockedGroupSql locked;

    /**
     * A transaction on the template's data source, at READ COMMITTED (which locks no gaps) when it is
     * a group's own, else the caller's; null without a data source.
     */
    private final @Nullable TransactionTemplate transaction;

    GroupStatements(JdbcTemplate jdbc, JdbcDialect dialect, DurableTaskSql sql) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.sql = sql;
        this.locked = new LockedGroupSql(sql);
        DataSource dataSource = jdbc.getDataSource();
        if (dataSource == null) {
            this.transaction = null;
        } else {
            TransactionTemplate template = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
            template.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
            this.transaction = template;
        }
    }

    /**
     * The fenced completions of several one-off tasks in one commit, in the caller's transaction if
     * any; returns each one's count, in the order of {@code tasks}, 1 where accepted.
     */
    int[] completeOnceAll(List<ClaimedTask> tasks) {
        if (tasks.isEmpty()) {
            return new int[0];
        }
        Statement group = sql.completeOnceGroup();
        if (group != null) {
            return inOneStatement(group.sql(), tasks, (ids, versions) -> binds(group.args(ids, versions, ids)));
        }
        return lockThenChange(
                tasks,
                row -> true,
                ids -> new Change(locked.completeLocked(ids.size()).sql(), new ArrayList<@Nullable Object>(ids)));
    }

    /**
     * The fenced starts of several claimed tasks (see {@link DurableTaskStore#start}) in one commit.
     * Returns each one's count, in the order of {@code tasks}, 1 where it may run.
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
        return lockThenChange(tasks, row -> owner.equals(row.owner()) && "CLAIMED".equals(row.state()), ids -> {
            List<@Nullable Object> values = new ArrayList<>(ids.size() + 1);
            values.add(lease);
            values.addAll(ids);
            return new Change(locked.startLocked(ids.size()).sql(), values);
        });
    }

    /**
     * Runs a group's statement, which returns the id and version of each task it let through, and
     * returns each task's count in the order of {@code tasks}. One entry per task is bound: a task
     * claimed again (a new version of the same id) can only go through under its latest claim, so
     * its older claims are left out and refused; and of the same claim listed twice, only the first
     * counts.
     */
    private int[] inOneStatement(
            String statement, List<ClaimedTask> tasks, BiFunction<long[], long[], List<@Nullable Object>> binds) {
        Map<Long, Long> latest = latest(tasks);
        List<@Nullable Object> values = binds.apply(longs(latest.keySet()), longs(latest.values()));
        Set<String> through = new HashSet<>(jdbc.query(
                statement, ps -> dialect.bind(ps, values), (rs, row) -> rs.getLong(1) + ":" + rs.getLong(2)));
        return counts(tasks, through);
    }

    /** A locked row of a group: what its fence is decided on. */
    private record LockedRow(
            long id,
            long version,
            @Nullable String owner,
            @Nullable String state) {}

    /** A statement on the ids of a group's rows that passed, and its values. */
    private record Change(String sql, List<@Nullable Object> values) {}

    /**
     * The portable answer (see the class comment): in one transaction, locks the group's rows in
     * ascending id order, keeps those under the version each was claimed with (its latest claim, as
     * {@link #inOneStatement}) that {@code fit} accepts, and runs {@code change} on their ids. Returns each task's count in the order of {@code tasks}.
     */
    private int[] lockThenChange(
            List<ClaimedTask> tasks, Predicate<LockedRow> fit, Function<List<Long>, Change> change) {
        TransactionTemplate transaction =
                Objects.requireNonNull(this.transaction, "a store on a template without a data source");
        Map<Long, Long> latest = latest(tasks);
        List<Long> ids = new ArrayList<>(latest.keySet());
        ids.sort(null); // every group locks in this one order
        Set<String> through;
        try {
            through = transaction.execute(status -> {
                Statement lock = locked.lockGroup(ids.size());
                List<LockedRow> rows = jdbc.query(
                        lock.sql(),
                        ps -> dialect.bind(ps, ids),
                        (rs, n) -> new LockedRow(rs.getLong(1), rs.getLong(2), rs.getString(3), rs.getString(4)));
                List<Long> passing = new ArrayList<>();
                Set<String> passed = new HashSet<>();
                for (LockedRow row : rows) {
                    if (Objects.equals(latest.get(row.id()), row.version()) && fit.test(row)) {
                        passing.add(row.id());
                        passed.add(row.id() + ":" + row.version());
                    }
                }
                if (!passing.isEmpty()) {
                    Change written = change.apply(passing);
                    jdbc.update(written.sql(), ps -> dialect.bind(ps, written.values()));
                }
                return passed;
            });
        } catch (TransactionException e) {
            throw new DataAccessResourceFailureException("Timed Jobs could not write a group of durable tasks", e);
        }
        return counts(tasks, Objects.requireNonNull(through, "through"));
    }

    /** Each task's latest claim: its id and the highest version it is listed with, in the order listed. */
    private static Map<Long, Long> latest(List<ClaimedTask> tasks) {
        Map<Long, Long> latest = new LinkedHashMap<>();
        tasks.forEach(task -> latest.merge(task.id(), task.version(), Math::max));
        return latest;
    }

    /** 1 for each task whose claim went through (the first listing of it), else 0. */
    private static int[] counts(List<ClaimedTask> tasks, Set<String> through) {
        int[] counts = new int[tasks.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = through.remove(tasks.get(i).id() + ":" + tasks.get(i).version()) ? 1 : 0;
        }
        return counts;
    }

    /** Values as an array the dialect binds as one of {@code BIGINT}. */
    private static long[] longs(Collection<Long> values) {
        return values.stream().mapToLong(Long::longValue).toArray();
    }

    private static List<@Nullable Object> binds(@Nullable Object... values) {
        return Arrays.asList(values);
    }
}
