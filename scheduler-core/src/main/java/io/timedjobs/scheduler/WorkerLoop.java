package io.timedjobs.scheduler;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe, called by the pool's workers and task threads: what a worker does with each task it
 * takes (run it, or hand it to a thread of its own), the run state it checks first, and the
 * counters it keeps. Everything a task's execution reads is a field of this object, so that the
 * loop pays no indirection per task.
 */
final class WorkerLoop {

    /*
     * Run state, only ever increasing:
     *   RUNNING    accepts tasks
     *   SHUTDOWN   accepts none; runs what the shutdown policy kept; workers exit when the queue
     *              is empty
     *   STOP       accepts none, runs none; running tasks were interrupted
     *   TERMINATED no worker left
     * Transitions happen under PoolLifecycle's mainLock, by it alone; the queue keeps its own
     * copy of "shut down" and "stopped" under its lock, which is what makes a submission and a
     * shutdown atomic to each other.
     */
    static final int RUNNING = 0;
    static final int SHUTDOWN = 1;
    static final int STOP = 2;
    static final int TERMINATED = 3;

    /**
     * The run state, one of the constants above. Read by every worker once per task, without a
     * lock; written by {@link PoolLifecycle} only, under its mainLock.
     */
    volatile int runState = RUNNING;

    private final LeaderFollowerDelayQueue queue;
    private final Ticker ticker;
    private final ExecutionListener listener;

    /** Whether executions are timed: only a listener needs the two ticker reads per task. */
    private final boolean timed;

    /**
     * Called around every execution, or null: final, so a pool without one pays a null check per
     * task and no volatile read.
     */
    private final @Nullable RunGate runGate;

    private final boolean keepRepeatingAfterShutdown;

    /**
     * Where each due task runs on a thread of its own (virtual threads), or null: then each task
     * runs on the worker that took it. The pool terminates only when none of those threads is left,
     * and a task that puts itself back after the last worker left gets a new worker.
     */
    final @Nullable ThreadPerTask threadPerTask;

    /** Whether the pool stops; made once, so that handing a task to its own thread allocates none. */
    private final BooleanSupplier stopping = () -> runState >= STOP;

    /** Shared with {@link PoolLifecycle}: the threads that run a task of their own join it here. */
    private final Set<PoolThread> poolThreads;

    /** Workers running a task; striped, since every worker writes it twice per task. */
    final LongAdder active = new LongAdder();

    final LongAdder completed = new LongAdder();
    final LongAdder failed = new LongAdder();

    /**
     * @param lastOwnThreadEnded called when the last task running on a thread of its own ended
     */
    WorkerLoop(
            PoolSettings settings,
            LeaderFollowerDelayQueue queue,
            Set<PoolThread> poolThreads,
            Runnable lastOwnThreadEnded) {
        this.queue = queue;
        this.ticker = settings.ticker();
        this.listener = settings.listener();
        this.timed = listener != ExecutionListener.none();
        this.runGate = settings.runGate();
        this.keepRepeatingAfterShutdown = settings.continueExistingPeriodicTasksAfterShutdown();
        this.poolThreads = poolThreads;
        ThreadFactory perTask = settings.taskThreadFactory();
        this.threadPerTask = perTask == null
                ? null
                : new ThreadPerTask(perTask, settings.concurrencyLimit(), this::runOnOwnThread, lastOwnThreadEnded);
    }

    /**
     * Takes and runs tasks until the queue has none left for this worker; called by a registered
     * worker. A failure that escapes ends the loop, and with it the worker.
     */
    void work(PoolThread me) {
        for (; ; ) {
            ScheduledTask<?> task = queue.take(me);
            if (task == null) {
                return;
            }
            ThreadPerTask own = threadPerTask;
            if (own != null) {
                own.start(task, stopping); // stopping: one still waiting for a permit then never runs
                continue;
            }
            // Published by the task's own move to RUNNING, which a cancel(true) reads first.
            me.running = task;
            try {
                runTask(task);
            } finally {
                me.running = null;
            }
        }
    }

    /** Runs a task on its own thread, registered so that its cancel(true) finds the thread. */
    private void runOnOwnThread(ScheduledTask<?> task) {
        PoolThread me = new PoolThread(Thread.currentThread());
        me.running = task;
        poolThreads.add(me);
        try {
            // Its thread has begun it, so shutdownNow no longer returns it: it runs, and sees an
            // interrupt like every running task. Read after registering: either shutdownNow's
            // interrupt finds this thread, or this read finds STOP.
            if (runState >= STOP) {
                Thread.currentThread().interrupt();
            }
            execute(task);
        } finally {
            poolThreads.remove(me);
        }
    }

    /** Runs a task on the worker that took it; one taken as shutdownNow began is cancelled instead. */
    private void runTask(ScheduledTask<?> task) {
        // An interrupt left over from a cancel(true) must not hit the next task; after
        // shutdownNow every task must see one.
        if (runState >= STOP) {
            task.cancel(false);
            return;
        }
        Thread.interrupted();
        execute(task);
    }

    /** Runs a task unless the shutdown policy stops it, and counts the execution. */
    private void execute(ScheduledTask<?> task) {
        if (task.isPeriodic() && runState >= SHUTDOWN && !keepRepeatingAfterShutdown) {
            task.cancel(false);
            return;
        }
        long due = task.time;
        // Read before it runs, for the listener: a one-shot task's result takes its place.
        Object work = task.payload;
        if (work == null) {
            work = task;
        }
        long start = timed ? ticker.read() : 0L;
        active.increment();
        Outcome outcome;
        try {
            outcome = task.execute(runGate);
        } catch (Throwable escaped) {
            // Only an error handler can throw here, for a task given to execute(): the worker
            // dies with it, and workerExited puts a new one in its place.
            count(Outcome.FAILED, due, start, work);
            throw escaped;
        } finally {
            active.decrement();
        }
        if (outcome != null) {
            count(outcome, due, start, work);
        }
    }

    private void count(Outcome outcome, long due, long start, Object work) {
        completed.increment();
        if (outcome == Outcome.FAILED) {
            failed.increment();
        }
        if (timed) {
            listener.onExecution(work, Math.max(0L, start - due), ticker.read() - start, outcome);
        }
    }
}
