package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.jdbc.database.BeatRide;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Thread-safe; one per instance, started and stopped by its owner (in Spring, its lifecycle). Claims
 * durable tasks from the database and starts each at its due instant on an in-memory engine.
 */
/*
 * Design overview.
 *
 * 1. At each poll of the instance's ClusterHeartbeat (its thread, every poll interval, right after it
 *    measured the DatabaseClock), this engine renews its leases, takes over expired claims of other
 *    instances, claims what is due within the lookahead, warns about due tasks whose handler this
 *    instance lacks, and counts what waits: DurableTaskPoll, one statement a step, which returns what
 *    it claimed for this engine to queue.
 * 2. Each claimed task goes into a LeaderFollowerScheduler at the local instant at which the database's
 *    clock reaches its due time (TaskStarts). The runner then starts it under its claim version (the
 *    start fence), so a task cancelled, replaced or taken over since the claim never runs in its old
 *    form; tasks due together start as a group, one commit. The start is written up to twice a
 *    database round trip ahead of the due instant (at most 20 ms), and the worker then waits for the
 *    instant, so that the round trip does not make the task late. Completions go in groups as well
 *    (DurableOutcomes, CompletionGroup).
 * 2b. With nothing due or claimed for its handlers, the instance sleeps between polls on PostgreSQL
 *    (IdlePace), looking for work within its heartbeat, and hears of tasks scheduled elsewhere through
 *    LISTEN/NOTIFY (TaskAnnouncements).
 * 3. A task scheduled on this instance within the lookahead is claimed here right after its
 *    transaction commits (handed to a worker, outside the caller's transaction), not at the next
 *    poll; tasks scheduled in one transaction by one batch claim (CommitClaims). If this instance
 *    dies in between, the row is still PENDING or its lease expires.
 * 4. When the instance registers (start-up, before its first poll), the claims a previous process under
 *    its name left are handed back (PENDING under a new version), not renewed as this one's: that
 *    process died, and its in-memory queue with it. Any instance claims them again at their due time.
 * 5. stop() hands every claimed task that has not started back to the database at once (under a new
 *    version, so that a late start or outcome of that claim is refused), then waits for the running
 *    ones (those started on their lease without a start statement included: they are kept); the in-memory engine drops its delayed tasks (durable tasks never run
 *    after shutdown: another instance runs them on time).
 */
public final class DurableTaskEngine {

    private static final Log logger = LogFactory.getLog(DurableTaskEngine.class);

    private final DurableTaskStore store;
    private final DurableTaskRunner runner;
    private final DurableTaskSettings settings;
    private final DurableTaskPoll poll;
    private final String owner;
    private final DatabaseClock databaseClock;
    private final OutageLog outages;
    private final ClusterHeartbeat heartbeat;
    private final boolean ownsHeartbeat;

    /** Claimed tasks waiting in the in-memory engine. */
    private final ClaimedQueue queued = new ClaimedQueue();

    /** Held by a poll, a claim after commit, and stop()'s release, so that no claim lands after it. */
    private final Object claimLock = new Object();

    private volatile boolean stopping;
    private volatile @Nullable LeaderFollowerScheduler workers;

    private final DurableTasks tasks;

    /** Whether to sleep between polls while nothing can be due here; see IdlePace. */
    private final IdlePace pace;

    private final TaskAnnouncements announcements;

    private final TaskStarts starts;

    private final CommitClaims commitClaims;

    DurableTaskEngine(
            ClusterDatabase database,
            boolean listen,
            DurableTaskStore store,
            DurableTaskStore transactional,
            DurableTaskPoll poll,
            DurableTaskRunner runner,
            DurableTaskSettings settings,
            Map<String, DurableTaskHandler<?>> handlers,
            PayloadCodec codec,
            Clock clock,
            ClusterHeartbeat heartbeat,
            boolean ownsHeartbeat,
            DatabaseClock databaseClock,
            OutageLog outages,
            DurableScheduleObserver scheduleObserver) {
        this.store = store;
        this.tasks = new DurableTasks(transactional, handlers, codec, clock, scheduleObserver, new LocalClaims() {
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
        });
        this.settings = settings;
        this.owner = heartbeat.instance().name();
        this.heartbeat = heartbeat;
        this.ownsHeartbeat = ownsHeartbeat;
        this.databaseClock = databaseClock;
        this.outages = outages;
        this.poll = poll;
        this.runner = runner;
        this.pace = new IdlePace(store, poll, settings, databaseClock.ticker());
        this.commitClaims = new CommitClaims(
                claimLock,
                poll,
                settings,
                databaseClock,
                heartbeat,
                queued,
                () -> workers,
                () -> stopping,
                this::enqueue,
                this::failed);
        this.starts = new TaskStarts(
                queued,
                runner,
                databaseClock,
                settings.poolSize(),
                database.dialect().batchCountsRows());
        this.announcements = new TaskAnnouncements(
                database,
                listen,
                owner,
                transactional,
                store,
                settings,
                databaseClock,
                pace,
                handlers.keySet(),
                commitClaims::claimDue);
        heartbeat.setBeatRide(this::beatRide);
        heartbeat.addPollStartAction(runner::pollBegins);
        heartbeat.addPollAction(this::poll);
        heartbeat.addPollAction(runner::polled);
        heartbeat.addHoldings(this::holdings);
        heartbeat.instance().addStartAction(this::releaseLeftovers);
    }

    /** What a silence longer than the lease may hand over to other instances, for the heartbeat's warning. */
    private String holdings() {
        List<String> running = runner.heldSinceLastPoll();
        int waiting = queued.size();
        if (running.isEmpty() && waiting == 0) {
            return "";
        }
        return "the claims of durable task(s) running here or ended since the silence began " + running + " and of "
                + waiting + " claimed task(s) waiting here (their starts are refused if taken over)";
    }

    /** Run as the instance registers: hands back the claims a dead process left under this name. */
    private void releaseLeftovers() {
        int released = store.releaseLeftovers(owner);
        if (released > 0) {
            // A restart after a crash or a kill under the same name: recovery, nothing to act on.
            logger.info("Handed back " + released + " durable task claims left under instance name " + owner
                    + " by a process that is gone; they run again at their due time");
        }
    }

    private void failed(RuntimeException failure) {
        outages.failed("durable tasks of " + owner, failure);
    }

    /** Returns a builder of an engine on the cluster's database. */
    public static DurableTaskEngineBuilder builder(ClusterDatabase database) {
        return new DurableTaskEngineBuilder(database);
    }

    /** The scheduling API bound to this engine: tasks due soon are claimed here right after commit. */
    public DurableTasks tasks() {
        return tasks;
    }

    /** Starts polling and firing; idempotent. */
    public synchronized void start() {
        if (workers != null) {
            return;
        }
        stopping = false;
        workers = LeaderFollowerScheduler.builder()
                .poolSize(settings.poolSize())
                .threadNamePrefix("timed-jobs-durable-")
                .executeExistingDelayedTasksAfterShutdown(false)
                .build();
        runner.startLingering();
        announcements.start();
        if (ownsHeartbeat) {
            heartbeat.start();
        }
    }

    /** Whether it was started and not stopped since. */
    public boolean isRunning() {
        return workers != null;
    }

    /**
     * Hands claimed tasks that have not started back to the database, then waits up to {@code timeout}
     * for running ones to finish; idempotent.
     *
     * @param timeout the longest wait for running tasks, {@link Duration#ZERO} for none; not null
     * @throws NullPointerException when {@code timeout} is null, before anything is stopped
     */
    public synchronized void stop(Duration timeout) {
        Objects.requireNonNull(
                timeout, "timeout: the longest wait for running durable tasks at stop (Duration.ZERO for none)");
        if (workers == null) {
            return;
        }
        stopping = true;
        announcements.stop();
        queued.clear();
        workers.shutdown();
        synchronized (claimLock) {
            try {
                // tasks started on their lease while the database was away are still CLAIMED: they run
                int released = store.releaseAll(owner, runner.runningIds());
                logger.debug("Released " + released + " durable task claims of " + owner);
                if (released > 0) {
                    announcements.handedBack(); // instances asleep take them at once
                }
            } catch (DataAccessException e) {
                failed(e);
            }
        }
        shutDown(workers, timeout);
        try {
            runner.writeAll();
        } catch (DataAccessException e) {
            logger.warn(
                    runner.deferredCount() + " durable task outcomes could not be written at shutdown;"
                            + " their leases will bring the tasks back",
                    e);
        }
        workers = null;
        if (ownsHeartbeat) {
            heartbeat.stop();
        }
    }

    /** Stops at once without touching the database, as a crash would: for tests of rescue. */
    synchronized void abandon() {
        if (workers == null) {
            return;
        }
        stopping = true;
        announcements.stop();
        workers.shutdownNow();
        runner.dropLingering();
        queued.clear();
        workers = null;
        if (ownsHeartbeat) {
            heartbeat.stop();
        }
    }

    /** One poll: deferred outcomes, lease renewal, rescue, claims, warnings, counts. */
    void poll() {
        synchronized (claimLock) {
            if (!stopping && workers != null) {
                pollOnce();
            }
        }
    }

    private void pollOnce() {
        try {
            runner.writeDeferred();
        } catch (DataAccessException e) {
            failed(e);
            return;
        }
        int waiting = queued.size();
        boolean holds = waiting > 0 || !runner.running().isEmpty() || runner.deferredCount() > 0;
        try {
            if (pace.skip(announcements.listening(), holds)) {
                return;
            }
        } catch (DataAccessException e) {
            failed(e);
            return;
        }
        DurableTaskPoll.Outcome polled = poll.run(waiting, holds);
        polled.claimed().forEach(this::enqueue);
        DataAccessException failure = polled.failure();
        if (failure != null) {
            failed(failure);
            return;
        }
        outages.succeeded();
        if (polled.claimed().isEmpty() && !holds && announcements.listening()) {
            try {
                pace.trySleep();
            } catch (DataAccessException e) {
                failed(e);
            }
        }
    }

    /** On the heartbeat's thread, before each beat: the look the beat carries while this engine sleeps. */
    private @Nullable BeatRide beatRide() {
        synchronized (claimLock) {
            return announcements.listening() ? pace.ride() : null;
        }
    }

    /** Whether the engine sleeps between polls now, for nothing can be due here soon: for tests. */
    boolean sleeping() {
        synchronized (claimLock) {
            return pace.sleeping();
        }
    }

    /** Whether tasks scheduled elsewhere are announced to this instance now: for tests. */
    boolean listening() {
        return announcements.listening();
    }

    private void enqueue(ClaimedTask task) {
        LeaderFollowerScheduler engine = workers;
        if (engine == null || stopping) {
            return; // stop() releases it
        }
        starts.enqueue(task, engine, () -> !stopping);
    }

    /**
     * Claims every task due now on the database's clock and runs each on the calling thread, together
     * with the tasks already queued here that are due: for tests of handlers. Returns how many ran.
     */
    public int runDueNow() {
        Instant localNow = databaseClock.localClock().instant();
        List<ClaimedTask> due = new ArrayList<>(
                queued.removeIf(task -> !databaseClock.toLocal(task.dueAt()).isAfter(localNow)));
        due.addAll(store.claimExpired(owner, settings.lease(), poll.handlerNames(), settings.batchSize()));
        due.addAll(store.claimDue(owner, Duration.ZERO, settings.lease(), poll.handlerNames(), settings.batchSize()));
        int ran = 0;
        for (ClaimedTask task : due) {
            if (runner.runHere(task)) {
                ran++;
            }
        }
        return ran;
    }

    /**
     * Runs one task now on the calling thread, whatever its due time (for tests of handlers): moves it
     * to now, as {@link DurableTasks#reschedule} does, claims it here and runs it. Returns whether it
     * existed and its handler ran.
     */
    public boolean runNow(String handler, String key) {
        Optional<ClaimedTask> claimed;
        // Under the poll's lock: moved to now, the task is due, and this instance's own poll must
        // not claim it between the move and the claim here.
        synchronized (claimLock) {
            OptionalLong id = store.reschedule(handler, key, databaseClock.now());
            if (id.isEmpty()) {
                return false;
            }
            queued.removeIf(task -> task.handler().equals(handler) && task.key().equals(key));
            claimed = store.claimOne(owner, id.getAsLong(), settings.lookahead(), settings.lease());
        }
        return claimed.map(runner::runHere).orElse(false);
    }

    /** This instance's name, as it appears in {@code claimed_by}. */
    public String owner() {
        return owner;
    }

    /** Tasks claimed by this instance, rescues excluded. */
    public long claimedCount() {
        return poll.claimed.sum();
    }

    /** Expired claims of other instances taken over by this one. */
    public long rescuedCount() {
        return poll.rescued.sum();
    }

    /** Executions whose handler returned. */
    public long completedCount() {
        return runner.completed.sum();
    }

    /** Executions whose handler threw. */
    public long failedCount() {
        return runner.failed.sum();
    }

    /** Starts and outcomes refused by their fence (the task changed or moved since its claim). */
    public long fencedCount() {
        return runner.fenced.sum();
    }

    /**
     * Tasks not done yet in the whole table (PENDING, CLAIMED or RUNNING), counted at most every 10 s;
     * not counted (zero) on an instance without handlers, which polls nothing.
     */
    public long pendingCount() {
        return poll.pending.get();
    }

    /** Database outages these durable tasks saw: each was logged once, when it began. */
    public long outageCount() {
        return outages.outageCount();
    }

    /** Failed database calls of these durable tasks, outages or not. */
    public long databaseFailureCount() {
        return outages.failureCount();
    }

    /** Claimed tasks waiting here for their due time. */
    public int queuedCount() {
        return queued.size();
    }

    private static void shutDown(LeaderFollowerScheduler scheduler, Duration timeout) {
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            scheduler.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
