package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.Sleeper;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Not thread-safe; used once, by the code that wires an instance (the auto-configuration, or a test).
 * Builds a {@link DurableTaskEngine} and the {@link DurableTasks} bound to it.
 *
 * <p>Given the instance's {@link ClusterHeartbeat} and {@link DatabaseClock} (as the
 * auto-configuration does), the engine polls on that heartbeat. Without them it makes its own,
 * under {@link #instanceName(String)}, and starts and stops them with itself.
 */
public final class DurableTaskEngineBuilder {

    private final ClusterDatabase database;
    private final Map<String, DurableTaskHandler<?>> handlers = new LinkedHashMap<>();
    private PayloadCodec codec = PayloadCodec.stringsOnly();
    private DurableExecutionObserver observer = DurableExecutionObserver.none();
    private DurableScheduleObserver scheduleObserver = DurableScheduleObserver.none();
    private DurableTaskSettings settings = DurableTaskSettings.defaults();
    private Clock clock = Clock.systemUTC();
    private @Nullable PlatformTransactionManager transactionManager;
    private @Nullable ClusterHeartbeat heartbeat;
    private @Nullable DatabaseClock databaseClock;
    private String instanceName = ClusterInstance.defaultName();
    private @Nullable RunHistory history;
    private boolean listen = true;
    private Duration completionLinger = CompletionGroup.LINGER;

    DurableTaskEngineBuilder(ClusterDatabase database) {
        this.database = Objects.requireNonNull(database, "database");
    }

    /** Registers a handler under a name. */
    public DurableTaskEngineBuilder handler(String name, DurableTaskHandler<?> handler) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(handler, "handler");
        if (name.isBlank() || name.length() > 200) {
            throw new IllegalArgumentException(
                    "A durable task handler name must be 1 to 200 characters, not blank, was '" + name + "'");
        }
        handlers.put(name, handler);
        return this;
    }

    /** Registers handlers by name (in Spring, the handler beans by bean name). */
    public DurableTaskEngineBuilder handlers(Map<String, ? extends DurableTaskHandler<?>> handlers) {
        handlers.forEach(this::handler);
        return this;
    }

    /** How payloads other than Strings are written and read; by default only Strings are accepted. */
    public DurableTaskEngineBuilder codec(PayloadCodec codec) {
        this.codec = Objects.requireNonNull(codec, "codec");
        return this;
    }

    /** What wraps each execution (an Observation in the auto-configuration). */
    public DurableTaskEngineBuilder observer(DurableExecutionObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
        return this;
    }

    /** What wraps each scheduling call and gives it the trace context to store (none by default). */
    public DurableTaskEngineBuilder scheduleObserver(DurableScheduleObserver scheduleObserver) {
        this.scheduleObserver = Objects.requireNonNull(scheduleObserver, "scheduleObserver");
        return this;
    }

    public DurableTaskEngineBuilder settings(DurableTaskSettings settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        return this;
    }

    /** The application's clock, that delays and recurring schedules count from. */
    public DurableTaskEngineBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /** The transaction manager of handlers that run in their completion's transaction. */
    public DurableTaskEngineBuilder transactionManager(@Nullable PlatformTransactionManager transactionManager) {
        this.transactionManager = transactionManager;
        return this;
    }

    /** The instance's heartbeat and database clock, to poll on instead of making its own. */
    public DurableTaskEngineBuilder heartbeat(ClusterHeartbeat heartbeat, DatabaseClock databaseClock) {
        this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
        this.databaseClock = Objects.requireNonNull(databaseClock, "databaseClock");
        return this;
    }

    /**
     * Records each execution in {@code history}, in the transaction of its completion or failure,
     * and prunes it at each poll; by default nothing is recorded.
     */
    public DurableTaskEngineBuilder history(RunHistory history) {
        this.history = Objects.requireNonNull(history, "history");
        return this;
    }

    /**
     * Whether to listen for tasks that other instances schedule (PostgreSQL's {@code LISTEN}, on one
     * connection held while the engine runs), so that an instance with nothing due soon polls only
     * with its heartbeat ({@link LeaseRule#beatInterval}) and still starts such tasks on time; true by default. Where the database
     * cannot notify, or when false, it polls at every poll interval.
     */
    public DurableTaskEngineBuilder listen(boolean listen) {
        this.listen = listen;
        return this;
    }

    /**
     * The longest the completion of a one-off task waits for others to share its commit (100 ms by
     * default): tasks that end within it are written in one transaction. It widens the at-least-once
     * window by as much (a task whose completion waits when this instance dies runs again once its
     * lease ends). {@link Duration#ZERO} writes each completion as its handler returns, in a group
     * only with those that end while another group is written.
     *
     * @throws IllegalArgumentException when negative
     */
    public DurableTaskEngineBuilder completionLinger(Duration completionLinger) {
        Objects.requireNonNull(completionLinger, "completionLinger");
        if (completionLinger.isNegative()) {
            throw new IllegalArgumentException("completionLinger must not be negative, got " + completionLinger);
        }
        this.completionLinger = completionLinger;
        return this;
    }

    /** This instance's name when the engine makes its own heartbeat; unique by default. */
    public DurableTaskEngineBuilder instanceName(String instanceName) {
        this.instanceName = Objects.requireNonNull(instanceName, "instanceName");
        return this;
    }

    public DurableTaskEngine build() {
        DurableTaskStore store = DurableTaskStore.forEngine(database);
        // Joins the caller's transaction when scheduling, and a handler's completion transaction.
        DurableTaskStore transactional = new DurableTaskStore(database);
        DatabaseClock timeSource = databaseClock;
        ClusterHeartbeat beat = heartbeat;
        boolean owned = beat == null;
        if (beat == null || timeSource == null) {
            timeSource = new DatabaseClock(database.jdbc(), database.dialect(), clock, Ticker.system());
            ClusterInstance instance = new ClusterInstance(
                    database.jdbc(),
                    database.dialect(),
                    database.tables(),
                    instanceName,
                    settings.lease(),
                    LeaseRule.beatInterval(settings.lease(), settings.pollInterval()),
                    Sleeper.system());
            beat = new ClusterHeartbeat(
                    instance,
                    timeSource,
                    new OutageLog(ClusterHeartbeat.class, "the heartbeat of instance " + instanceName),
                    settings.pollInterval());
        }
        String owner = beat.instance().name();
        RunHistory runs = history != null ? history : RunHistory.disabled(database);
        if (runs.enabled() && !handlers.isEmpty()) {
            // only an instance that runs tasks writes records; an idle one adds no statement
            beat.addPollAction(runs::pruneIfDue);
        }
        TransactionTemplate transaction =
                transactionManager == null ? null : new TransactionTemplate(transactionManager);
        Map<String, DurableTaskHandler<?>> registered = Map.copyOf(handlers);
        OutageLog outages = new OutageLog(DurableTaskEngine.class, "durable tasks of instance " + owner);
        LeaseDeadline leases = new LeaseDeadline();
        DurableTaskPoll poll = new DurableTaskPoll(store, settings, registered.keySet(), owner, leases);
        DurableTaskRunner runner = new DurableTaskRunner(
                store,
                transactional,
                registered,
                codec,
                observer,
                settings,
                owner,
                clock,
                transaction,
                leases,
                outages,
                databaseAway(outages, beat.outages()),
                runs,
                database.dialect().batchCountsRows(),
                completionLinger,
                database.databaseTimeout().dividedBy(DurableTaskRunner.SUSPECT_SHARE));
        return new DurableTaskEngine(
                database,
                listen,
                store,
                transactional,
                poll,
                runner,
                settings,
                registered,
                codec,
                clock,
                beat,
                owned,
                timeSource,
                outages,
                scheduleObserver);
    }

    /** Whether the last call of the engine, or of the heartbeat, failed: read by each start. */
    private static java.util.function.BooleanSupplier databaseAway(OutageLog engine, OutageLog heartbeat) {
        return () -> engine.inOutage() || heartbeat.inOutage();
    }
}
