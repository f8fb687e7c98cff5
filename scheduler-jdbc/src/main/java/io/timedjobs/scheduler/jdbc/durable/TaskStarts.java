package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Thread-safe; used by {@link DurableTaskEngine} only: by the threads that claim, and on its workers.
 * Puts each claimed task on a timer of the in-memory engine, to fire a moment before its due
 * instant on this instance's clock, and starts it when that timer fires. Tasks due together start
 * as a group: when a claimed task's timer fires, the tasks queued here whose timers fire by then
 * too are taken out of the queue and started with it: their fenced starts go to the database as one batch in one
 * transaction, one commit for the group instead of one each. The worker then hands the others that
 * started to the engine's workers and runs its own.
 *
 * <p>A group holds at most {@value #PER_WORKER} tasks per worker: a started task waiting for a worker
 * counts as running (its lease is renewed, its attempt counted), so that wait stays short; one that
 * waited longer than a renewal interval runs only once its lease is renewed as still held. Tasks
 * that are not due together start one by one.
 */
final class TaskStarts {

    private static final Log logger = LogFactory.getLog(TaskStarts.class);

    /** The longest a worker writes a start ahead of its task's due instant and then waits. */
    private static final Duration MAX_START_AHEAD = Duration.ofMillis(20);

    /** Tasks started together, per worker of the engine. */
    static final int PER_WORKER = 4;

    private final ClaimedQueue queued;
    private final DurableTaskRunner runner;
    private final DatabaseClock clock;
    private final int maxGroup;

    TaskStarts(ClaimedQueue queued, DurableTaskRunner runner, DatabaseClock clock, int poolSize) {
        this.queued = queued;
        this.runner = runner;
        this.clock = clock;
        this.maxGroup = PER_WORKER * poolSize;
    }

    /**
     * Queues a claimed task on {@code workers}, to fire {@link #startAhead()} before the local instant
     * at which the database's clock reaches its due time, if {@code running} still holds then.
     */
    void enqueue(ClaimedTask task, LeaderFollowerScheduler workers, BooleanSupplier running) {
        Instant localDue = localDue(task);
        long delayNanos = Duration.between(clock.localClock().instant(), localDue)
                .minus(startAhead())
                .toNanos();
        queued.add(task, delayNanos, workers, claimed -> {
            if (running.getAsBoolean()) {
                fire(claimed, localDue, workers);
            }
        });
    }

    /**
     * How long before its due instant a task's fenced start is written, so that the start's round
     * trip does not make the handler late: twice the database round trip last measured (four times
     * the clock's error, which is half a round trip), at most {@link #MAX_START_AHEAD}. The handler
     * itself never starts before its due instant.
     */
    private Duration startAhead() {
        Duration ahead = clock.error().multipliedBy(4);
        return ahead.compareTo(MAX_START_AHEAD) > 0 ? MAX_START_AHEAD : ahead;
    }

    /** Starts and runs {@code task}, whose timer fired, with the queued tasks due as soon. */
    private void fire(ClaimedTask task, Instant localDue, LeaderFollowerScheduler workers) {
        Instant startBy = clock.localClock().instant().plus(startAhead());
        List<ClaimedTask> group = new ArrayList<>();
        group.add(task);
        group.addAll(queued.removeUpTo(other -> !localDue(other).isAfter(startBy), maxGroup - 1));
        if (group.size() == 1) {
            runner.run(task, localDue);
            return;
        }
        // one order for every group, so that two transactions never lock the same rows crosswise
        group.sort(Comparator.comparingLong(ClaimedTask::id));
        long lapses = runner.lapses();
        long startedNanos = System.nanoTime();
        List<ClaimedTask> startedGroup;
        try {
            startedGroup = runner.startAll(group, localDue);
        } catch (RuntimeException unexpected) {
            // out of the queue, these tasks are this worker's: each goes its own way rather than be lost
            logger.warn(
                    "A group of " + group.size() + " durable tasks could not be started together; each"
                            + " starts alone",
                    unexpected);
            for (ClaimedTask each : group) {
                runner.run(each, localDue(each));
            }
            return;
        }
        ClaimedTask own = null;
        for (ClaimedTask started : startedGroup) {
            if (started == task) {
                own = started;
                continue;
            }
            Instant due = localDue(started);
            try {
                workers.execute(() -> runner.runStarted(started, due, lapses, startedNanos));
            } catch (RejectedExecutionException shuttingDown) {
                runner.runStarted(started, due, lapses, startedNanos); // started: it runs, as a running task does
            }
        }
        if (own != null) {
            runner.runStarted(own, localDue, lapses, startedNanos);
        }
    }

    private Instant localDue(ClaimedTask task) {
        return clock.notBeforeLocal(task.dueAt()); // never early: see DatabaseClock
    }
}
