package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.InstanceWiring;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TaskNotifications;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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

    /**
     * Builds the engine and every part of it, once, and ties them to the heartbeat: its polls, its
     * beats' ride, the warning of a silence, and the hand-back of a dead process's claims as the
     * instance registers.
     */
    public DurableTaskEngine build() {
        PollingInstance instance = pollingInstance();
        ClusterHeartbeat beat = instance.heartbeat();
        DatabaseClock timeSource = instance.clock();
        String owner = instance.owner();
        // the second joins the caller's transaction when scheduling, and a handler's completion transaction
        TaskStores stores = new TaskStores(DurableTaskStore.forEngine(database), new DurableTaskStore(database));
        RunHistory runs = history != null ? history : RunHistory.disabled(database);
        Map<String, DurableTaskHandler<?>> registered = Map.copyOf(handlers);
        EngineOutages outages = EngineOutages.of(
                new OutageLog(DurableTaskEngine.class, "durable tasks of instance " + owner), beat.outages(), owner);
        LeaseDeadline leases = new LeaseDeadline();
        DurableTaskPoll poll = new DurableTaskPoll(stores.own(), settings, registered.keySet(), owner, leases);
        DurableTaskRunner runner = runner(stores, registered, runs, owner, leases, outages);
        ClaimedQueue queued = new ClaimedQueue();
        TaskStarts starts = new TaskStarts(queued, runner, timeSource, settings.poolSize());
        ClaimedWork work = new ClaimedWork(queued, starts, settings.poolSize());
        IdlePace pace = new IdlePace(stores.own(), poll, settings, timeSource.ticker());
        CommitClaims commitClaims = new CommitClaims(work, poll, settings, timeSource, beat, outages);
        TaskAnnouncements announcements = new TaskAnnouncements(
                stores,
                TaskNotifications.channel(database.tables()),
                settings,
                timeSource,
                pace,
                registered.keySet(),
                commitClaims::claimDue);
        Claiming claiming = new Claiming(poll, pace, announcements, announcements.listener(database, owner, listen));
        DurableTasks tasks = new DurableTasks(
                stores.joining(),
                registered,
                codec,
                clock,
                scheduleObserver,
                localClaims(commitClaims, announcements, queued));
        HandRun handRun = new HandRun(stores.own(), settings, timeSource, work, poll, runner);
        DurableTaskEngine engine =
                new DurableTaskEngine(stores.own(), instance, claiming, work, runner, tasks, outages, handRun);
        if (runs.enabled() && !handlers.isEmpty()) {
            // only an instance that runs tasks writes records; an idle one adds no statement
            beat.addPollAction(runs::pruneIfDue);
        }
        beat.setBeatRide(engine::beatRide);
        beat.addPollStartAction(runner::pollBegins);
        beat.addPollAction(engine::poll);
        beat.addPollAction(runner::polled);
        beat.addHoldings(engine::holdings);
        beat.instance().addStartAction(engine::releaseLeftovers);
        return engine;
    }

    /** The heartbeat and database clock given, or made here (then the engine starts and stops them). */
    private PollingInstance pollingInstance() {
        if (heartbeat != null && databaseClock != null) {
            return new PollingInstance(heartbeat, databaseClock, false);
        }
        DatabaseClock made = InstanceWiring.databaseClock(database, clock);
        ClusterInstance instance =
                InstanceWiring.instance(database, instanceName, settings.lease(), settings.pollInterval());
        return new PollingInstance(InstanceWiring.heartbeat(instance, made, settings.pollInterval()), made, true);
    }

    private DurableTaskRunner runner(
            TaskStores stores,
            Map<String, DurableTaskHandler<?>> registered,
            RunHistory runs,
            String owner,
            LeaseDeadline leases,
            EngineOutages outages) {
        RunCounts counts = new RunCounts();
        FenceRefusals refusals = new FenceRefusals(leases, owner, counts);
        DurableCompletions completions = new DurableCompletions(stores, runs, settings, owner, clock, refusals);
        DurableOutcomes outcomes = new DurableOutcomes(
                stores.own(),
                runs,
                owner,
                outages,
                refusals,
                completionLinger,
                one -> completions.completeRecorded(one.task(), one.run(), one.lapsesAtStart()));
        FencedStarts starts =
                new FencedStarts(stores.own(), owner, settings, leases, outages, clock, database.databaseTimeout());
        TransactionTemplate transaction =
                transactionManager == null ? null : new TransactionTemplate(transactionManager);
        return new DurableTaskRunner(
                registered,
                new HandlerCall(codec, observer, settings),
                starts,
                completions,
                outcomes,
                transaction,
                counts);
    }

    /**
     * Where the scheduling API tells this engine of its own tasks: one due soon is claimed here after
     * its commit, or announced to the others; one cancelled leaves the in-memory queue.
     */
    private static LocalClaims localClaims(
            CommitClaims commitClaims, TaskAnnouncements announcements, ClaimedQueue queued) {
        return new LocalClaims() {
            @Override
            public void scheduled(String handler, long id, Instant due) {
                if (!commitClaims.scheduled(handler, id, due)) {
                    announcements.scheduled(handler, id, due);
                }
            }

            @Override
            public void cancelled(String handler, String key) {
                queued.removeIf(
                        task -> task.handler().equals(handler) && task.key().equals(key));
            }
        };
    }
}
