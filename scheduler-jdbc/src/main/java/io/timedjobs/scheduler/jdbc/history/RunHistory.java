package io.timedjobs.scheduler.jdbc.history;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.UndeclaredThrowableException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe; one per database, shared by the clustered jobs, the durable engine and the
 * dashboard. The history of runs: one record per clustered run and per durable execution, and one
 * per range of a clustered job's skipped fires ({@link #recordSkip}; see {@link RunRecord}), found
 * by {@link #find}, {@link #page} and {@link #fateAt}, and pruned by age and by count.
 *
 * <p>A record costs no commit of its own: it is written with the statement that records the run's
 * end, in one statement where the dialect allows ({@link #completeFenced}: PostgreSQL's
 * data-modifying {@code WITH}), else in one transaction ({@link #complete}: the run lease's
 * release, or the durable task's completion or failure, then the insert, one commit), or inside a
 * handler's completion transaction ({@link #recordJoined}). A completion the database refuses (the
 * run is no longer this instance's) writes no durable record; a clustered run is recorded even then,
 * since it ran here. A record that cannot be written (a table changed by hand) is logged and the
 * run's end written alone: the history never holds a lease or a task back.
 *
 * <p>Pruning deletes batches of at most {@value #PRUNE_BATCH} rows, each its own short statement,
 * at most {@value #PRUNE_BATCHES} a round: no statement holds many locks, and a round ends by itself.
 * Instances prune at their own pace (two at once delete the same rows), and only after they wrote a
 * record: one with nothing to run sends nothing, and those that write keep the table within bounds.
 */
public final class RunHistory {

    private static final Log logger = LogFactory.getLog(RunHistory.class);

    /** Longest error summary kept: the exception's class and message, cut. */
    public static final int ERROR_LENGTH = 500;

    /**
     * Longest stack trace kept, in characters: whole frames up to it, then one line saying how many
     * frames were left out ({@code "\t... 42 more"}).
     */
    public static final int STACK_TRACE_LENGTH = 8_000;

    /** Records written by one statement of a group's completions; 10 binds each, far below any limit. */
    static final int ROWS_PER_INSERT = 200;

    static final int PRUNE_BATCH = 500;
    static final int PRUNE_BATCHES = 20;

    /** Time between pruning rounds, unless the last one was cut short by its batch limit. */
    static final Duration PRUNE_EVERY = Duration.ofSeconds(10);

    private final RunHistorySettings settings;
    private final JdbcDialect dialect;
    private final RunHistorySql sql;
    private final JdbcTemplate jdbc;
    private final JdbcTemplate joined;
    private final TransactionTemplate transaction;
    private final AtomicLong nextPruneNanos = new AtomicLong(System.nanoTime());

    /** Whether this instance wrote a record since its last pruning round began (or has a backlog). */
    private final AtomicBoolean written = new AtomicBoolean();

    /** Whether the last record failed: the first failure is a WARN, the next DEBUG until one goes through. */
    private final AtomicBoolean recordsFailing = new AtomicBoolean();

    /** The run history table's name, for messages. */
    private final String table;

    private final SkipRecords skips;
    private final HistoryReads reads;
    private final AbandonedRuns abandoned;

    /** The history of runs in the database's run history table. */
    public RunHistory(ClusterDatabase database, RunHistorySettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.dialect = database.dialect();
        this.sql = new RunHistorySql(database.dialect(), database.tables());
        this.table = database.tables().runHistory();
        this.jdbc = database.jdbc();
        // the application's data source as is: joins a handler's completion transaction
        this.joined = new JdbcTemplate(database.dataSource());
        // the scheduler's bounded data source, the one of database.jdbc(): release and record share a
        // connection. At the session's isolation: setting another would cost statements each time.
        this.transaction = new TransactionTemplate(new DataSourceTransactionManager(database.boundedDataSource()));
        // a new skip record's short transaction, at READ COMMITTED (no gap locks on MariaDB); its own,
        // so that releases and completions keep the session's isolation and pay no statement for it
        TransactionTemplate skipWrites =
                new TransactionTemplate(new DataSourceTransactionManager(database.boundedDataSource()));
        skipWrites.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.skips = new SkipRecords(jdbc, skipWrites, dialect, sql, this::record);
        this.reads = new HistoryReads(jdbc, dialect, sql, this::record);
        this.abandoned = new AbandonedRuns(jdbc, skipWrites, dialect, sql, database.tables(), settings);
    }

    /** Returns a history that records nothing, for code that runs without one. */
    public static RunHistory disabled(ClusterDatabase database) {
        return new RunHistory(database, RunHistorySettings.disabled());
    }

    public RunHistorySettings settings() {
        return settings;
    }

    /** Whether runs are recorded. */
    public boolean enabled() {
        return settings.enabled();
    }

    /**
     * Runs {@code completion} (a statement on {@link ClusterDatabase#jdbc()} that records a run's
     * end) and, when it returns true or {@code always}, writes {@code run}, in one transaction.
     * Returns what the completion returned. When the history is off, runs the completion alone.
     */
    public boolean complete(BooleanSupplier completion, FinishedRun run, boolean always) {
        if (!settings.enabled()) {
            return completion.getAsBoolean();
        }
        boolean[] insertFailed = {false};
        boolean[] inserted = {false};
        Boolean accepted;
        try {
            accepted = transaction.execute(status -> {
                boolean done = completion.getAsBoolean();
                if (done || always) {
                    try {
                        insert(jdbc, run);
                        inserted[0] = true;
                    } catch (RuntimeException ex) {
                        insertFailed[0] = true;
                        throw ex;
                    }
                }
                return done;
            });
        } catch (TransactionException ex) {
            // no connection, or the commit failed: to callers, the database is away as for any statement
            throw new DataAccessResourceFailureException("Timed Jobs could not record the end of a run", ex);
        } catch (DataAccessException ex) {
            if (!insertFailed[0]) {
                throw ex;
            }
            // The record failed and took the completion with it: the run's end matters more.
            String failed = "Timed Jobs could not write the run history record of " + run.kind() + " " + run.name()
                    + "; the run's end is written without it";
            if (recordsFailing.compareAndSet(false, true)) {
                logger.warn(
                        failed + ". Check that the table " + table + " is at schema version 6 and that the"
                                + " database user may INSERT into it, or turn the history off"
                                + " (timed-jobs.history.enabled=false); further failures are logged at DEBUG"
                                + " until a record is written again",
                        ex);
            } else if (logger.isDebugEnabled()) {
                logger.debug(failed, ex);
            }
            return completion.getAsBoolean();
        }
        if (inserted[0] && recordsFailing.compareAndSet(true, false)) {
            logger.info("Timed Jobs writes run history records to " + table + " again");
        }
        return Boolean.TRUE.equals(accepted);
    }

    /**
     * As {@link #complete}, for a completion that is the one statement {@code change} (an UPDATE or
     * DELETE of at most one row, on {@link ClusterDatabase#jdbc()}, with {@code changeBinds}) and
     * returns whether it changed that row. Where the dialect runs both writes in one statement
     * ({@link JdbcDialect#changeWithInsert}: PostgreSQL), the end and its record go in one round
     * trip with no transaction of its own; if that statement fails, {@link #complete} runs, which
     * tells a failed record from a database that is away.
     *
     * @param completion the same change through its store, for the other databases
     */
    public boolean completeFenced(
            String change,
            List<@Nullable Object> changeBinds,
            BooleanSupplier completion,
            FinishedRun run,
            boolean always) {
        String folded = settings.enabled()
                ? dialect.changeWithInsert(change, sql.insertSelect(!always).sql())
                : null;
        if (folded == null) {
            return complete(completion, run, always);
        }
        List<@Nullable Object> binds = new ArrayList<>(changeBinds);
        binds.addAll(recordBinds(run));
        Integer changed;
        try {
            changed = jdbc.query(folded, ps -> dialect.bind(ps, binds), rs -> rs.next() ? rs.getInt(1) : null);
        } catch (DataAccessException ex) {
            return complete(completion, run, always);
        }
        boolean done = changed != null && changed > 0;
        if (done || always) {
            written.set(true);
        }
        return done;
    }

    /**
     * Runs {@code changes} (fenced statements on {@link ClusterDatabase#jdbc()}, one per run of {@code
     * runs}, in that order, returning each one's row count) and writes the records of the runs whose
     * row changed, all in one transaction: one commit for a group of completions. Returns the counts.
     * If anything fails, nothing is written and the failure is thrown (a database that cannot be
     * reached as a {@link DataAccessException}).
     */
    public int[] completeAll(Supplier<int[]> changes, List<FinishedRun> runs) {
        int[] counts;
        try {
            counts = transaction.execute(status -> {
                int[] changed = changes.get();
                if (settings.enabled()) {
                    List<List<@Nullable Object>> records = new ArrayList<>();
                    for (int i = 0; i < changed.length; i++) {
                        if (changed[i] > 0) {
                            records.add(recordBinds(runs.get(i)));
                        }
                    }
                    // One statement per chunk of records, where a batch would execute one per record.
                    for (int from = 0; from < records.size(); from += ROWS_PER_INSERT) {
                        List<@Nullable Object> binds = new ArrayList<>();
                        List<List<@Nullable Object>> chunk =
                                records.subList(from, Math.min(records.size(), from + ROWS_PER_INSERT));
                        chunk.forEach(binds::addAll);
                        jdbc.update(sql.insertRows(chunk.size()).sql(), ps -> dialect.bind(ps, binds));
                        written.set(true);
                    }
                }
                return changed;
            });
        } catch (TransactionException ex) {
            throw new DataAccessResourceFailureException("Timed Jobs could not record the end of runs", ex);
        }
        return Objects.requireNonNull(counts, "counts");
    }

    /**
     * Records nominal fires of a clustered job that did not run, but for those one of the job's latest
     * records covers (another instance recorded them, or one ran): consecutive fires skipped for one
     * reason grow one record (see {@link SkipRecords} for what it guarantees across instances).
     * Returns whether this call wrote them. Never throws for the database: a skip that cannot be
     * written is logged, as a run's record is, and left out.
     *
     * @param next the job's step from one nominal fire to the next, or null when it has none
     */
    public boolean recordSkip(SkippedFires skip, java.util.function.@Nullable UnaryOperator<@Nullable Instant> next) {
        if (!settings.enabled()) {
            return false;
        }
        boolean wrote = skips.recordOrLog(skip, next);
        written.compareAndSet(false, wrote);
        return wrote;
    }

    /** Returns the writer of the runs found abandoned: begun, and never ended by their instance. */
    public AbandonedRuns abandoned() {
        return abandoned;
    }

    /** Writes {@code run} within the caller's transaction on the application's data source. */
    public void recordJoined(FinishedRun run) {
        if (settings.enabled()) {
            insert(joined, run);
        }
    }

    private void insert(JdbcTemplate via, FinishedRun run) {
        List<@Nullable Object> binds = recordBinds(run);
        via.update(sql.insert().sql(), ps -> dialect.bind(ps, binds));
        written.set(true);
    }

    /** The binds of a record, in the order of {@link RunHistorySql#insert()}. */
    private static List<@Nullable Object> recordBinds(FinishedRun run) {
        return Arrays.asList(
                run.kind().name(),
                run.name(),
                run.taskKey(),
                run.fireAt(),
                run.instance(),
                -run.durationMillis(),
                run.durationMillis(),
                run.outcome().name(),
                run.attempt(),
                cut(run.error()),
                run.fireAt(),
                run.catchUp(),
                StackTraces.bounded(run.stackTrace(), STACK_TRACE_LENGTH));
    }

    /** Returns the records that meet the query, latest start first. */
    public List<RunRecord> find(RunHistoryQuery query) {
        return jdbc.query(
                sql.find(query, false).sql(), ps -> dialect.bind(ps, RunHistorySql.findBinds(query)), this::record);
    }

    /**
     * Returns one page of the records that meet the query, latest written first, with the next page's
     * cursor (see {@link RunHistoryPage}); without stack traces, which {@link #find(long)} reads.
     */
    public RunHistoryPage page(RunHistoryQuery query) {
        return reads.page(query);
    }

    /** Returns record {@code id} whole, its stack trace included, or null if there is none. */
    public @Nullable RunRecord find(long id) {
        return reads.byId(id);
    }

    /**
     * Returns what happened to clustered job {@code job} at {@code at}: the records whose nominal
     * fires include it, and the nearest before and after it; two reads on the (name, fire_at) index.
     */
    public FireFate fateAt(String job, Instant at) {
        return reads.fateAt(job, at);
    }

    /** Returns the last nominal fire before {@code before} that a record of job {@code job} covers, or null. */
    public @Nullable Instant lastFireBefore(String job, Instant before) {
        return reads.lastFireBefore(job, before);
    }

    /** Prunes when a round is due (see the class comment); called at each poll of the heartbeat. */
    public void pruneIfDue() {
        long now = System.nanoTime();
        long due = nextPruneNanos.get();
        if (!settings.enabled()
                || !written.get()
                || now - due < 0
                || !nextPruneNanos.compareAndSet(due, now + PRUNE_EVERY.toNanos())) {
            return;
        }
        written.set(false);
        if (prune() >= (long) PRUNE_BATCH * PRUNE_BATCHES) {
            written.set(true); // a backlog: go on at the next poll
            nextPruneNanos.set(now);
        }
    }

    /**
     * Prunes one round: records beyond {@link RunHistorySettings#maxRows()}, then records older than
     * the retention, in batches; returns how many it deleted.
     */
    public int prune() {
        if (!settings.enabled()) {
            return 0;
        }
        int deleted = 0;
        Long cutoff = jdbc.query(sql.countCutoff().sql(), rs -> rs.next() ? rs.getLong(1) : null, settings.maxRows());
        if (cutoff != null) {
            deleted += deleteBatches(sql.deleteUpTo().sql(), cutoff, PRUNE_BATCHES);
        }
        int left = PRUNE_BATCHES - deleted / PRUNE_BATCH;
        if (left > 0 && oldestIsDue()) {
            deleted +=
                    deleteBatches(sql.deleteOlder().sql(), -settings.retention().toMillis(), left);
        }
        return deleted;
    }

    /**
     * Whether the oldest record (lowest id) is due by age. Records are written in the order runs
     * end, so one that ran longer than the others may wait for the ones written before it.
     */
    private boolean oldestIsDue() {
        Instant oldest =
                jdbc.query(sql.oldestStart().sql(), rs -> rs.next() ? dialect.readInstant(rs, "started_at") : null, 1);
        // compared on this JVM's clock, but only to skip work: the delete compares on the database's
        return oldest != null
                && oldest.isBefore(Instant.now().minus(settings.retention()).plusSeconds(60));
    }

    private int deleteBatches(String delete, Object bind, int batches) {
        int deleted = 0;
        for (int batch = 0; batch < batches; batch++) {
            int rows = jdbc.update(delete, bind, PRUNE_BATCH);
            deleted += rows;
            if (rows < PRUNE_BATCH) {
                break;
            }
        }
        return deleted;
    }

    /**
     * Returns the error summary of a run that threw: the exception's class and message (of its
     * cause, for the wrappers reflection adds), cut to {@link #ERROR_LENGTH}.
     */
    public static String errorSummary(Throwable failure) {
        Throwable shown = failure;
        while ((shown instanceof UndeclaredThrowableException || shown instanceof InvocationTargetException)
                && shown.getCause() != null) {
            shown = shown.getCause();
        }
        return Objects.requireNonNull(cut(String.valueOf(shown)));
    }

    private static @Nullable String cut(@Nullable String error) {
        return StackTraces.bounded(error, ERROR_LENGTH);
    }

    /** Returns a run's stack trace, cut at a frame's end within {@link #STACK_TRACE_LENGTH} characters. */
    public static String stackTrace(Throwable failure) {
        return StackTraces.of(failure, STACK_TRACE_LENGTH);
    }

    private RunRecord record(ResultSet rs, int row) throws SQLException {
        Instant fireAt = Objects.requireNonNull(dialect.readInstant(rs, "fire_at"));
        Instant fireUntil = dialect.readInstant(rs, "fire_until");
        String reason = rs.getString("skip_reason");
        return new RunRecord(
                rs.getLong("id"),
                RunKind.valueOf(rs.getString("kind")),
                rs.getString("name"),
                rs.getString("task_key"),
                fireAt,
                rs.getString("instance_name"),
                Objects.requireNonNull(dialect.readInstant(rs, "started_at")),
                Duration.ofMillis(rs.getLong("duration_ms")),
                RunOutcome.valueOf(rs.getString("outcome")),
                rs.getInt("attempt"),
                rs.getString("error"),
                fireUntil == null ? fireAt : fireUntil, // written by an instance of schema version 5
                rs.getLong("fires"),
                reason == null ? null : SkipReason.valueOf(reason),
                rs.getBoolean("catch_up"),
                rs.getString("stack_trace"));
    }
}
