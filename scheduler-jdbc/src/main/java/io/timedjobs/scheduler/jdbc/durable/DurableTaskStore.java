package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Thread-safe. Runs {@link DurableTaskSql}'s statements on the application's {@link DataSource}
 * through Spring's {@link JdbcTemplate}, so each joins the caller's Spring-managed transaction when
 * there is one (the connection comes from {@code DataSourceUtils}) and commits on its own otherwise.
 *
 * <p>Each method is one statement. Methods named for a fenced step return whether the fence let it
 * through.
 */
final class DurableTaskStore {

    private static final int ERROR_LENGTH = 2000;

    private final JdbcTemplate jdbc;
    private final DurableTaskSql sql;

    DurableTaskStore(DataSource dataSource, JdbcDialect dialect, TableNames tables) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.sql = new DurableTaskSql(dialect, tables);
    }

    /** Inserts or replaces a task; returns its id, which a replacement keeps. */
    long upsert(String handler, String key, @Nullable String payload, @Nullable String schedule, Instant due) {
        List<Long> ids = jdbc.query(
                sql.upsert(),
                ps -> bind(ps, handler, key, text(payload), text(schedule), due, due),
                (rs, row) -> rs.getLong(1));
        if (ids.size() != 1) {
            throw new IllegalStateException("Scheduling " + handler + "/" + key + " changed " + ids.size() + " rows");
        }
        return ids.get(0);
    }

    boolean reschedule(String handler, String key, Instant due) {
        return jdbc.update(sql.reschedule(), ps -> bind(ps, due, due, handler, key)) > 0;
    }

    boolean cancel(String handler, String key) {
        return jdbc.update(sql.cancel(), ps -> bind(ps, handler, key)) > 0;
    }

    List<ClaimedTask> claimDue(
            String owner, Duration lookahead, Duration lease, Collection<String> handlers, int limit) {
        if (handlers.isEmpty()) {
            return List.of();
        }
        String[] names = handlers.toArray(String[]::new);
        return jdbc.query(
                sql.claimDue(), ps -> bind(ps, owner, lease, names, lookahead, limit), DurableTaskStore::claimed);
    }

    Optional<ClaimedTask> claimOne(String owner, long id, Duration lookahead, Duration lease) {
        return jdbc
                .query(sql.claimOne(), ps -> bind(ps, owner, lease, id, lookahead, 1), DurableTaskStore::claimed)
                .stream()
                .findFirst();
    }

    List<ClaimedTask> claimExpired(String owner, Duration lease, Collection<String> handlers, int limit) {
        if (handlers.isEmpty()) {
            return List.of();
        }
        String[] names = handlers.toArray(String[]::new);
        return jdbc.query(sql.claimExpired(), ps -> bind(ps, owner, lease, names, limit), DurableTaskStore::claimed);
    }

    /** The fenced start; true means this claim still holds and the task is now RUNNING. */
    boolean start(ClaimedTask task, String owner, Duration lease) {
        return jdbc.update(sql.start(), ps -> bind(ps, lease, task.id(), owner, task.version())) == 1;
    }

    /** The fenced completion of a one-off task (its row goes). */
    boolean completeOnce(ClaimedTask task) {
        return jdbc.update(sql.completeOnce(), ps -> bind(ps, task.id(), task.version())) == 1;
    }

    /** The fenced completion of a recurring task: PENDING again at its next fire. */
    boolean completeRecurring(ClaimedTask task, Instant nextFire, @Nullable String error) {
        return jdbc.update(
                        sql.completeRecurring(),
                        ps -> bind(ps, nextFire, nextFire, text(truncate(error)), task.id(), task.version()))
                == 1;
    }

    /** The fenced failure of an attempt: retried after {@code delay}, or FAILED when {@code terminal}. */
    boolean fail(ClaimedTask task, boolean terminal, String error, Duration delay) {
        String state = (terminal ? DurableTaskState.FAILED : DurableTaskState.PENDING).name();
        return jdbc.update(sql.fail(), ps -> bind(ps, state, truncate(error), delay, task.id(), task.version())) == 1;
    }

    /** Renews the lease of every claim {@code owner} holds; returns how many. */
    int heartbeat(String owner, Duration lease) {
        return jdbc.update(sql.heartbeat(), ps -> bind(ps, lease, owner));
    }

    /** Gives back every claim of {@code owner} that has not started; returns how many. */
    int releaseAll(String owner) {
        return jdbc.update(sql.releaseAll(), ps -> bind(ps, owner));
    }

    /** Gives back one claim that has not started. */
    boolean release(ClaimedTask task, String owner) {
        return jdbc.update(sql.releaseOne(), ps -> bind(ps, task.id(), owner, task.version())) == 1;
    }

    /** Handlers of due tasks that none of {@code handlers} can run. */
    List<String> foreignHandlersDue(Collection<String> handlers) {
        String[] names = handlers.toArray(String[]::new);
        return jdbc.query(sql.foreignHandlersDue(), ps -> bind(ps, (Object) names), (rs, row) -> rs.getString(1));
    }

    /** Tasks not done yet: PENDING, CLAIMED or RUNNING. */
    long countWaiting() {
        Long count = jdbc.queryForObject(sql.countWaiting(), Long.class);
        return count == null ? 0 : count;
    }

    List<DurableTaskInfo> query(DurableTaskQuery query) {
        StringBuilder text = new StringBuilder(sql.select());
        List<Object> args = new ArrayList<>();
        if (query.handler() != null) {
            text.append(" AND handler = ?");
            args.add(query.handler());
        }
        if (query.key() != null) {
            text.append(" AND task_key = ?");
            args.add(query.key());
        }
        if (query.state() != null) {
            text.append(" AND state = ?");
            args.add(query.state().name());
        }
        if (query.dueBefore() != null) {
            text.append(" AND due_at < ?");
            args.add(query.dueBefore());
        }
        if (query.dueFrom() != null) {
            text.append(" AND due_at >= ?");
            args.add(query.dueFrom());
        }
        text.append(sql.orderAndLimit());
        args.add(query.limit());
        return jdbc.query(text.toString(), ps -> bind(ps, args.toArray()), DurableTaskStore::info);
    }

    private static ClaimedTask claimed(ResultSet rs, int row) throws SQLException {
        return new ClaimedTask(
                rs.getLong("id"),
                rs.getString("handler"),
                rs.getString("task_key"),
                rs.getString("payload"),
                rs.getString("schedule"),
                instant(rs, "fire_at"),
                instant(rs, "due_at"),
                rs.getInt("attempts"),
                rs.getLong("claim_version"));
    }

    private static DurableTaskInfo info(ResultSet rs, int row) throws SQLException {
        return new DurableTaskInfo(
                rs.getLong("id"),
                rs.getString("handler"),
                rs.getString("task_key"),
                rs.getString("payload"),
                rs.getString("schedule"),
                instant(rs, "fire_at"),
                instant(rs, "due_at"),
                DurableTaskState.valueOf(rs.getString("state")),
                rs.getInt("attempts"),
                rs.getString("last_error"),
                rs.getString("claimed_by"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        return Objects.requireNonNull(JdbcDialect.readInstant(rs, column), column);
    }

    /** Marks a nullable String bind so that its SQL type is known when it is null. */
    private static Object text(@Nullable String value) {
        return value == null ? NullText.INSTANCE : value;
    }

    private static @Nullable String truncate(@Nullable String error) {
        return error == null || error.length() <= ERROR_LENGTH ? error : error.substring(0, ERROR_LENGTH);
    }

    private static void bind(PreparedStatement ps, Object... args) throws SQLException {
        Connection connection = ps.getConnection();
        for (int i = 0; i < args.length; i++) {
            Object arg = args[i];
            int index = i + 1;
            if (arg == NullText.INSTANCE || arg == null) {
                ps.setNull(index, Types.VARCHAR);
            } else if (arg instanceof String s) {
                ps.setString(index, s);
            } else if (arg instanceof Instant instant) {
                ps.setObject(index, JdbcDialect.bind(instant));
            } else if (arg instanceof Duration duration) {
                ps.setLong(index, duration.toMillis());
            } else if (arg instanceof String[] names) {
                ps.setArray(index, connection.createArrayOf("VARCHAR", names));
            } else {
                ps.setObject(index, arg);
            }
        }
    }

    private enum NullText {
        INSTANCE
    }
}
