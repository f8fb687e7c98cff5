package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.jdbc.database.BeatRide;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
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
    private final PollingInstance instance;
    private final String owner;
    private final Claiming claiming;
    private final ClaimedWork work;
    private final DurableTaskRunner runner;
    private final DurableTasks tasks;
    private final EngineOutages outages;
    private final HandRun handRun;

    /** Assigns only: {@link DurableTaskEngineBuilder} builds the parts and ties them to the heartbeat. */
    DurableTaskEngine(
            DurableTaskStore store,
            PollingInstance instance,
            Claiming claiming,
            ClaimedWork work,
            DurableTaskRunner runner,
            DurableTasks tasks,
            EngineOutages outages,
            HandRun handRun) {
        this.store = store;
        this.instance = instance;
        this.owner = instance.owner();
        this.claiming = claiming;
        this.work = work;
        this.runner = runner;
        this.tasks = tasks;
        this.outages = outages;
        this.handRun = handRun;
    }

    /** What a silence longer than the lease may hand over to other instances, for the heartbeat's warning. */
    String holdings() {
        List<String> running = runner.heldSinceLastPoll();
        int waiting = work.queued().size();
        if (running.isEmpty() && waiting == 0) {
            return "";
        }
        return "the claims of durable task(s) running here or ended since the silence began " + running + " and of "
                + waiting + " claimed task(s) waiting here (their starts are refused if taken over)";
    }

    /** Run as the instance registers: hands back the claims a dead process left under this name. */
    void releaseLeftovers() {
        int released = store.releaseLeftovers(owner);
        if (released > 0) {
            // A restart after a crash or a kill under the same name: recovery, nothing to act on.
            logger.info("Handed back " + released + " durable task claims left under instance name " + owner
                    + " by a process that is gone; they run again at their due time");
        }
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
        if (work.workers() != null) {
            return;
        }
        work.begin();
        runner.startLingering();
        claiming.listener().start();
        if (instance.ownsHeartbeat()) {
            instance.heartbeat().start();
        }
    }

    /** Whether it was started and not stopped since. */
    public boolean isRunning() {
        return work.workers() != null;
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
        LeaderFollowerScheduler workers = work.workers();
        if (workers == null) {
            return;
        }
        work.beginStop();
        claiming.listener().stop();
        work.queued().clear();
        workers.shutdown();
        synchronized (work.claimLock()) {
            try {
                // tasks started on their lease while the database was away are still CLAIMED: they run
                int released = store.releaseAll(owner, runner.runningIds());
                logger.debug("Released " + released + " durable task claims of " + owner);
                if (released > 0) {
                    claiming.announcements().handedBack(); // instances asleep take them at once
                }
            } catch (DataAccessException e) {
                outages.failed(e);
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
        work.ended();
        if (instance.ownsHeartbeat()) {
            instance.heartbeat().stop();
        }
    }

    /** Stops at once without touching the database, as a crash would: for tests of rescue. */
    synchronized void abandon() {
        LeaderFollowerScheduler workers = work.workers();
        if (workers == null) {
            return;
        }
        work.beginStop();
        claiming.listener().stop();
        workers.shutdownNow();
        runner.dropLingering();
        work.queued().clear();
        work.ended();
        if (instance.ownsHeartbeat()) {
            instance.heartbeat().stop();
        }
    }

    /** One poll: deferred outcomes, lease renewal, rescue, claims, warnings, counts. */
    void poll() {
        synchronized (work.claimLock()) {
            if (work.open()) {
                pollOnce();
            }
        }
    }

    private void pollOnce() {
        try {
            runner.writeDeferred();
        } catch (DataAccessException e) {
            outages.failed(e);
            return;
        }
        int waiting = work.queued().size();
        boolean holds = waiting > 0 || !runner.running().isEmpty() || runner.deferredCount() > 0;
        IdlePace pace = claiming.pace();
        boolean listening = claiming.listener().listening();
        try {
            if (pace.skip(listening, holds)) {
                return;
            }
        } catch (DataAccessException e) {
            outages.failed(e);
            return;
        }
        DurableTaskPoll.Outcome polled = claiming.poll().run(waiting, holds);
        polled.claimed().forEach(work::enqueue);
        DataAccessException failure = polled.failure();
        if (failure != null) {
            outages.failed(failure);
            return;
        }
        outages.log().succeeded();
        if (polled.claimed().isEmpty() && !holds && claiming.listener().listening()) {
            try {
                pace.trySleep();
            } catch (DataAccessException e) {
                outages.failed(e);
            }
        }
    }

    /** On the heartbeat's thread, before each beat: the look the beat carries while this engine sleeps. */
    @Nullable
    BeatRide beatRide() {
        synchronized (work.claimLock()) {
            return claiming.listener().listening() ? claiming.pace().ride() : null;
        }
    }

    /** Whether the engine sleeps between polls now, for nothing can be due here soon: for tests. */
    boolean sleeping() {
        synchronized (work.claimLock()) {
            return claiming.pace().sleeping();
        }
    }

    /** Whether tasks scheduled elsewhere are announced to this instance now: for tests. */
    boolean listening() {
        return claiming.listener().listening();
    }

    /** What runs this engine's tasks on the calling thread, for {@link DurableTaskTesting}. */
    HandRun handRun() {
        return handRun;
    }

    /** This instance's name, as it appears in {@code claimed_by}. */
    public String owner() {
        return owner;
    }

    /** Tasks claimed by this instance, rescues excluded. */
    public long claimedCount() {
        return claiming.poll().claimedCount();
    }

    /** Expired claims of other instances taken over by this one. */
    public long rescuedCount() {
        return claiming.poll().rescuedCount();
    }

    /** Executions whose handler returned. */
    public long completedCount() {
        return runner.counts().completedCount();
    }

    /** Executions whose handler threw. */
    public long failedCount() {
        return runner.counts().failedCount();
    }

    /** Starts and outcomes refused by their fence (the task changed or moved since its claim). */
    public long fencedCount() {
        return runner.counts().fencedCount();
    }

    /**
     * Tasks not done yet in the whole table (PENDING, CLAIMED or RUNNING), counted at most every 10 s;
     * not counted (zero) on an instance without handlers, which polls nothing.
     */
    public long pendingCount() {
        return claiming.poll().pendingCount();
    }

    /** Database outages these durable tasks saw: each was logged once, when it began. */
    public long outageCount() {
        return outages.log().outageCount();
    }

    /** Failed database calls of these durable tasks, outages or not. */
    public long databaseFailureCount() {
        return outages.log().failureCount();
    }

    /** Claimed tasks waiting here for their due time. */
    public int queuedCount() {
        return work.queued().size();
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
