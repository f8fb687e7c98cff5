package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.BeatRide;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Not API: used by the durable engine and by the dashboard's report. Thread-safe. Runs {@link
 * DurableTaskSql}'s statements on the application's {@link DataSource} through Spring's {@link
 * JdbcTemplate}, so each joins the caller's Spring-managed transaction when there is one (the
 * connection comes from {@code DataSourceUtils}) and commits on its own otherwise.
 *
 * <p>Each method is one statement. Methods named for a fenced step return whether the fence let it
 * through.
 */
public final class DurableTaskStore {

    private static final int ERROR_LENGTH = 2000;

    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final DurableTaskSql sql;

    /** The statements of a group of starts or completions, beside these. */
    private final GroupStatements groups;

    /** Creates the store of the database's tasks table. */
    public DurableTaskStore(ClusterDatabase database) {
        this(database.dataSource(), database.dialect(), database.tables());
    }

    DurableTaskStore(DataSource dataSource, JdbcDialect dialect, TableNames tables) {
        this(new JdbcTemplate(dataSource), dialect, tables);
    }

    /** On a given template: the engine's bounded one, or a test's that explains instead of running. */
    DurableTaskStore(JdbcTemplate jdbc, JdbcDialect dialect, TableNames tables) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.sql = DurableTaskSql.of(dialect, tables);
        this.groups = new GroupStatements(jdbc, dialect, sql);
    }

    /**
     * Returns the store the engine's own threads use (poll, start, completion outside a handler's
     * transaction): each of its waits on the database is bounded by the database timeout. Its
     * statements never join the application's transactions.
     */
    static DurableTaskStore forEngine(ClusterDatabase database) {
        return new DurableTaskStore(database.jdbc(), database.dialect(), database.tables());
    }

    /** Inserts or replaces a task without a trace context; returns its id, which a replacement keeps. */
    long upsert(String handler, String key, @Nullable String payload, @Nullable String schedule, Instant due) {
        return upsert(handler, key, payload, schedule, due, null);
    }

    /** Inserts or replaces a task; returns its id, which a replacement keeps. */
    long upsert(
            String handler,
            String key,
            @Nullable String payload,
            @Nullable String schedule,
            Instant due,
            @Nullable String traceParent) {
        List<Long> ids = dialect.upsert(
                jdbc,
                sql.upsert(),
                binds(handler, key, payload, schedule, due, due, traceParent),
                (rs, row) -> rs.getLong(1));
        if (ids.size() != 1) {
            throw new IllegalStateException("Scheduling " + handler + "/" + key + " changed " + ids.size() + " rows");
        }
        return ids.get(0);
    }

    /** Moves a task to a new due time as a fresh task; returns its id, or empty if there is no such task. */
    OptionalLong reschedule(String handler, String key, Instant due) {
        List<Long> ids = dialect.updateReturning(
                jdbc, sql.reschedule(), binds(due, due), binds(handler, key), (rs, row) -> rs.getLong(1));
        return ids.isEmpty() ? OptionalLong.empty() : OptionalLong.of(ids.get(0));
    }

    boolean cancel(String handler, String key) {
        return jdbc.update(sql.cancel().sql(), ps -> dialect.bind(ps, binds(handler, key))) > 0;
    }

    List<ClaimedTask> claimDue(
            String owner, Duration lookahead, Duration lease, Collection<String> handlers, int limit) {
        if (handlers.isEmpty()) {
            return List.of();
        }
        String[] names = handlers.toArray(String[]::new);
        return dialect.claim(
                jdbc, sql.claimDue(names.length), binds(owner, lease), binds(names, lookahead), limit, this::claimed);
    }

    Optional<ClaimedTask> claimOne(String owner, long id, Duration lookahead, Duration lease) {
        return dialect.claim(jdbc, sql.claimOne(), binds(owner, lease), binds(id, lookahead), 1, this::claimed).stream()
                .findFirst();
    }

    List<ClaimedTask> claimExpired(String owner, Duration lease, Collection<String> handlers, int limit) {
        if (handlers.isEmpty()) {
            return List.of();
        }
        String[] names = handlers.toArray(String[]::new);
        return dialect.claim(
                jdbc, sql.claimExpired(names.length), binds(owner, lease), binds((Object) names), limit, this::claimed);
    }

    /** The fenced start; true means this claim still holds and the task is now RUNNING. */
    boolean start(ClaimedTask task, String owner, Duration lease) {
        return update(sql.start().sql(), lease, task.id(), owner, task.version()) == 1;
    }

    /** Renews a started task's lease if it is still {@code owner}'s under its claim; returns whether. */
    boolean renewStarted(ClaimedTask task, String owner, Duration lease) {
        return update(sql.renewStarted().sql(), lease, task.id(), owner, task.version()) == 1;
    }

    /** The fenced completion of a one-off task (its row goes). */
    boolean completeOnce(ClaimedTask task) {
        return update(sql.completeOnce().sql(), task.id(), task.version()) == 1;
    }

    /**
     * The fenced completions of several one-off tasks, in the caller's transaction if any; returns
     * each one's count, 1 where accepted (see {@link GroupStatements#completeOnceAll}).
     */
    int[] completeOnceAll(List<ClaimedTask> tasks) {
        return groups.completeOnceAll(tasks);
    }

    /**
     * The fenced starts of several claimed tasks (see {@link #start}) in one commit; returns each
     * one's count, 1 where it may run (see {@link GroupStatements#startAll}).
     */
    int[] startAll(List<ClaimedTask> tasks, String owner, Duration lease) {
        return groups.startAll(tasks, owner, lease);
    }

    /** As {@link #completeOnce(ClaimedTask)}, with the run's record (see {@link RunHistory#completeFenced}). */
    boolean completeOnce(ClaimedTask task, RunHistory history, FinishedRun run) {
        return history.completeFenced(
                sql.completeOnce().sql(), binds(task.id(), task.version()), () -> completeOnce(task), run, false);
    }

    /** As {@link #completeRecurring}, with the run's record (see {@link RunHistory#completeFenced}). */
    boolean completeRecurring(ClaimedTask task, Instant nextFire, RunHistory history, FinishedRun run) {
        return history.completeFenced(
                sql.completeRecurring().sql(),
                binds(nextFire, nextFire, null, task.id(), task.version()),
                () -> completeRecurring(task, nextFire, null),
                run,
                false);
    }

    /** The fenced completion of a recurring task: PENDING again at its next fire. */
    boolean completeRecurring(ClaimedTask task, Instant nextFire, @Nullable String error) {
        return update(sql.completeRecurring().sql(), nextFire, nextFire, truncate(error), task.id(), task.version())
                == 1;
    }

    /** The fenced failure of an attempt: retried after {@code delay}, or FAILED when {@code terminal}. */
    boolean fail(ClaimedTask task, boolean terminal, String error, Duration delay) {
        String state = (terminal ? DurableTaskState.FAILED : DurableTaskState.PENDING).name();
        return update(sql.fail().sql(), state, truncate(error), delay, task.id(), task.version()) == 1;
    }

    /**
     * Counts stop here: a gauge at this value means at least this many. Counting further would read
     * that many more index entries each time, every 10 s on each instance with a handler.
     */
    public static final long COUNT_LIMIT = 100_000;

    /** Renews the lease of every claim {@code owner} holds; returns how many. */
    int renewLeases(String owner, Duration lease) {
        return renewLeases(owner, lease, lease);
    }

    /**
     * Renews the lease of each claim {@code owner} holds that ends within {@code endingWithin} from
     * now; returns how many. The others were claimed, started or renewed lately: rewriting them
     * would only add row versions.
     */
    int renewLeases(String owner, Duration lease, Duration endingWithin) {
        return update(sql.renewLeases().sql(), lease, owner, endingWithin);
    }

    /**
     * Gives back every claim of {@code owner} that has not started, under a new version, but those of
     * the {@code kept} ids (tasks running here whose start is not written yet); returns how many.
     */
    int releaseAll(String owner, List<Long> kept) {
        Object[] binds = new Object[kept.size() + 1];
        binds[0] = owner;
        for (int i = 0; i < kept.size(); i++) {
            binds[i + 1] = kept.get(i);
        }
        return update(sql.releaseAll(kept.size()).sql(), binds);
    }

    /** Hands back the claims a dead process left under {@code owner}; returns how many. */
    int releaseLeftovers(String owner) {
        return update(sql.releaseLeftovers().sql(), owner);
    }

    /** Gives back one claim that has not started. */
    boolean release(ClaimedTask task, String owner) {
        return update(sql.releaseOne().sql(), task.id(), owner, task.version()) == 1;
    }

    /** Handlers of due tasks that none of {@code handlers} can run. */
    List<String> foreignHandlersDue(Collection<String> handlers) {
        String[] names = handlers.toArray(String[]::new);
        return jdbc.query(
                sql.foreignHandlersDue(names.length).sql(),
                ps -> dialect.bind(ps, binds((Object) names)),
                (rs, row) -> rs.getString(1));
    }

    /**
     * What an instance needs to know to sleep until something can be due for it: the earliest due
     * time of its handlers' PENDING tasks, whether any of their tasks is claimed, and the database's
     * time, in one statement.
     */
    NextEvent nextEvent(Collection<String> handlers) {
        String[] names = handlers.toArray(String[]::new);
        NextEvent next = jdbc.query(
                sql.nextEvent(names.length).sql(),
                ps -> dialect.bind(ps, binds(names, names, 1)),
                rs -> rs.next()
                        ? new NextEvent(dialect.readInstant(rs, 1), rs.getLong(2) > 0, dialect.readInstant(rs, 3))
                        : null);
        if (next == null || next.now() == null) {
            throw new IllegalStateException("The next-event query returned no database time");
        }
        return next;
    }

    /**
     * {@link #nextEvent} as a query for the heartbeat to carry: {@code looked} gets what it read, the
     * database's time being the heartbeat's.
     */
    BeatRide nextEventRide(Collection<String> handlers, Consumer<NextEvent> looked) {
        String[] names = handlers.toArray(String[]::new);
        return new BeatRide(
                sql.nextEventColumns(names.length).sql(),
                List.of(names, names, 1),
                (row, databaseTime) ->
                        looked.accept(new NextEvent(dialect.readInstant(row, 2), row.getLong(3) > 0, databaseTime)));
    }

    /**
     * The earliest due time of an instance's PENDING tasks (null for none), whether any of its tasks is
     * claimed or running anywhere, and the database's time when read.
     */
    record NextEvent(
            @Nullable Instant nextDue,
            boolean claimed,
            @Nullable Instant now) {}

    /**
     * Announces {@code payload} to the instances that listen on {@code channel}, when the current
     * transaction commits (at once without one); does nothing where the database cannot notify.
     */
    void announce(String channel, String payload) {
        String notify = dialect.notifySql();
        if (notify != null) {
            jdbc.query(
                    notify,
                    ps -> {
                        ps.setString(1, channel);
                        ps.setString(2, payload);
                    },
                    rs -> null);
        }
    }

    /**
     * Tasks not done yet (PENDING, CLAIMED or RUNNING), counted up to {@value #COUNT_LIMIT}: a count of
     * millions would read millions of index entries at every count, past the database timeout.
     */
    long countWaiting() {
        return countWaiting(COUNT_LIMIT);
    }

    long countWaiting(long limit) {
        Long count = jdbc.queryForObject(sql.countWaiting().sql(), Long.class, limit);
        return count == null ? 0 : count;
    }

    /**
     * Returns the number of tasks in every state, zero included, in the order of {@link
     * DurableTaskState}, each counted up to {@value #COUNT_LIMIT}.
     */
    public Map<String, Long> countsByState() {
        return countsByState(COUNT_LIMIT);
    }

    Map<String, Long> countsByState(long limit) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (DurableTaskState state : DurableTaskState.values()) {
            counts.put(state.name(), 0L);
        }
        Object[] limits = new Object[DurableTaskState.values().length];
        Arrays.fill(limits, limit);
        jdbc.query(
                sql.countByState().sql(),
                rs -> {
                    counts.put(rs.getString("state"), rs.getLong("n"));
                },
                limits);
        return counts;
    }

    List<DurableTaskInfo> query(DurableTaskQuery query) {
        return jdbc.query(sql.find(query).sql(), ps -> dialect.bind(ps, DurableTaskSql.findBinds(query)), this::info);
    }

    private int update(String statement, @Nullable Object... values) {
        return dialect.update(jdbc, statement, ps -> dialect.bind(ps, binds(values)));
    }

    /** Returns bind values as a list that may hold nulls. */
    private static List<@Nullable Object> binds(@Nullable Object... values) {
        return Arrays.asList(values);
    }

    private ClaimedTask claimed(ResultSet rs, int row) throws SQLException {
        return new ClaimedTask(
                rs.getLong("id"),
                rs.getString("handler"),
                rs.getString("task_key"),
                rs.getString("payload"),
                rs.getString("schedule"),
                instant(rs, "fire_at"),
                instant(rs, "due_at"),
                rs.getInt("attempts"),
                rs.getLong("claim_version"),
                rs.getString("trace_parent"));
    }

    private DurableTaskInfo info(ResultSet rs, int row) throws SQLException {
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

    private Instant instant(ResultSet rs, String column) throws SQLException {
        return Objects.requireNonNull(dialect.readInstant(rs, column), column);
    }

    private static @Nullable String truncate(@Nullable String error) {
        if (error == null || error.length() <= ERROR_LENGTH) {
            return error;
        }
        // never half a surrogate pair: the column holds characters
        int end = Character.isHighSurrogate(error.charAt(ERROR_LENGTH - 1)) ? ERROR_LENGTH - 1 : ERROR_LENGTH;
        return error.substring(0, end);
    }
}
