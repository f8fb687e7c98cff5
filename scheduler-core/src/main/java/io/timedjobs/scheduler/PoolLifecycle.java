package io.timedjobs.scheduler;

import static io.timedjobs.scheduler.WorkerLoop.RUNNING;
import static io.timedjobs.scheduler.WorkerLoop.SHUTDOWN;
import static io.timedjobs.scheduler.WorkerLoop.STOP;
import static io.timedjobs.scheduler.WorkerLoop.TERMINATED;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe, used by its pool (WorkerPool) only; every change happens under {@link #mainLock}:
 * starts and replaces the pool's workers, keeps the roster of live ones, and runs the shutdown and
 * termination sequence.
 *
 * <p>The run state itself is a field of the {@link WorkerLoop}, so that the workers read it once
 * per task without going through this object; only this class writes it, under mainLock.
 */
final class PoolLifecycle {

    private final WorkerLoop loop;
    private final LeaderFollowerDelayQueue queue;
    private final ThreadFactory threadFactory;
    private final int poolSize;
    private final boolean keepDelayedAfterShutdown;
    private final boolean keepRepeatingAfterShutdown;

    /** The tasks running on threads of their own, or null; see WorkerLoop's field of that name. */
    private final @Nullable ThreadPerTask threadPerTask;

    /**
     * Guards the run state's transitions and the set of workers.
     *
     * <p>Lock order: mainLock first, then the queue's lock, never the other way round. Code that
     * holds the queue's lock calls nothing that takes mainLock; a task's cancel(true), which runs
     * on any thread and may find its task running, finds the worker through {@link #poolThreads}
     * without mainLock, so a worker waiting for that cancel in its task's release() never waits
     * behind whoever holds mainLock.
     */
    private final ReentrantLock mainLock = new ReentrantLock();

    private final Condition termination = mainLock.newCondition();

    /** Live workers. Guarded by mainLock. */
    private final HashSet<Thread> workers = new HashSet<>();

    /**
     * The queue's view of each live worker, which also says what it runs; shared with the pool,
     * which adds and removes the threads that run a task of their own. A worker's entry changes
     * under mainLock; the set is read without it by a cancel(true), which may miss a worker that
     * starts meanwhile (it runs no task yet) and is not hurt by one that leaves (it runs no task
     * any more).
     */
    private final Set<PoolThread> poolThreads;

    /**
     * Whether all workers were started. One starts with the scheduler ({@link #prestartWorker}),
     * so that the first task does not wait for a thread to start; the others start right after
     * the first submission was queued. Written under mainLock; volatile, for the pool reads it at
     * every submission.
     */
    volatile boolean started;

    /**
     * Run by shutdown() after it marked the pool and before it closes the queue; null but in tests
     * that force a submission into that window.
     */
    volatile @Nullable Runnable afterShutdownMarked;

    PoolLifecycle(PoolSettings settings, LeaderFollowerDelayQueue queue, WorkerLoop loop, Set<PoolThread> poolThreads) {
        this.loop = loop;
        this.queue = queue;
        this.threadFactory = settings.threadFactory();
        this.poolSize = settings.poolSize();
        this.keepDelayedAfterShutdown = settings.executeExistingDelayedTasksAfterShutdown();
        this.keepRepeatingAfterShutdown = settings.continueExistingPeriodicTasksAfterShutdown();
        this.threadPerTask = loop.threadPerTask;
        this.poolThreads = poolThreads;
    }

    // ---------------------------------------------------------------------------------------------
    // Starting workers

    /** Starts one worker, parked until the first task comes, unless one was started already. */
    void prestartWorker() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (!started && loop.runState == RUNNING && workers.isEmpty()) {
                addWorker();
            }
        } finally {
            mainLock.unlock();
        }
    }

    /** Starts the workers not started yet; called after the first submission was queued. */
    void startWorkers() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (started || loop.runState != RUNNING) {
                return; // after shutdown, tryTerminate starts a worker if an accepted task needs one
            }
            for (int i = workers.size(); i < poolSize; i++) {
                addWorker();
            }
            started = true;
        } finally {
            mainLock.unlock();
        }
    }

    /** Starts one worker. Called under mainLock. */
    private void addWorker() {
        Thread thread = threadFactory.newThread(this::runWorker);
        if (thread == null) {
            throw new IllegalStateException("Thread factory " + threadFactory + " returned no thread");
        }
        workers.add(thread);
        try {
            thread.start();
        } catch (Throwable failure) {
            workers.remove(thread);
            throw failure;
        }
    }

    /** The body of every worker: registered, it runs tasks until none is left for it. */
    private void runWorker() {
        PoolThread me = new PoolThread(Thread.currentThread());
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            poolThreads.add(me);
        } finally {
            mainLock.unlock();
        }
        boolean abrupt = true;
        try {
            loop.work(me);
            abrupt = false;
        } finally {
            workerExited(me, abrupt);
        }
    }

    /** Forgets a worker; one that died of a failure gets a successor while work remains. */
    private void workerExited(PoolThread worker, boolean abrupt) {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            poolThreads.remove(worker);
            workers.remove(worker.thread);
            int runState = loop.runState;
            if (abrupt && runState < STOP && (runState == RUNNING || queue.hasTasks())) {
                addWorker();
            }
            tryTerminate();
        } finally {
            mainLock.unlock();
        }
    }

    /** Called when the last task running on a thread of its own ended. */
    void ownThreadsEnded() {
        if (loop.runState >= SHUTDOWN) {
            tryTerminateUnderLock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Shutdown and termination

    /**
     * Moves to TERMINATED when nothing is left to do. A task accepted before the queue closed may
     * have found no worker (none had started yet, or the last one was leaving): then one starts
     * to run it, for accepting and shutting down are atomic to each other only if every accepted
     * task is run or cancelled by the shutdown policy. Called under mainLock.
     */
    private void tryTerminate() {
        int runState = loop.runState;
        if (runState < SHUTDOWN || runState == TERMINATED || !workers.isEmpty()) {
            return;
        }
        if (runState == SHUTDOWN && queue.hasTasks()) {
            addWorker();
            return;
        }
        if (threadPerTask != null && threadPerTask.running() > 0) {
            return; // the last task on a thread of its own calls again when it ends
        }
        loop.runState = TERMINATED;
        termination.signalAll();
    }

    void shutdown() {
        advanceRunState(SHUTDOWN);
        Runnable hook = afterShutdownMarked;
        if (hook != null) {
            hook.run();
        }
        for (ScheduledTask<?> dropped : queue.shutdown(keepDelayedAfterShutdown, keepRepeatingAfterShutdown)) {
            dropped.cancel(false);
        }
        tryTerminateUnderLock();
    }

    private void tryTerminateUnderLock() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            tryTerminate();
        } finally {
            mainLock.unlock();
        }
    }

    /**
     * Stops the pool and returns the tasks that never ran. No worker takes a task from the queue
     * once this has begun: the queue stops handing tasks out in the same mainLock section that
     * moves the run state to STOP, so a worker takes at most the one task it was already taking,
     * and cancels it (it sees STOP) or had begun it. Everything else is returned: what the queue
     * holds, and the tasks handed to a thread of their own that had not begun.
     */
    List<Runnable> shutdownNow() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            queue.stopTaking();
            if (loop.runState < STOP) {
                loop.runState = STOP;
            }
        } finally {
            mainLock.unlock();
        }
        List<Runnable> neverRan = new ArrayList<>(queue.stop());
        if (threadPerTask != null) {
            neverRan.addAll(threadPerTask.takeBackUnstarted());
        }
        mainLock.lock();
        try {
            for (Thread worker : workers) {
                worker.interrupt();
            }
            for (PoolThread w : poolThreads) {
                if (w.running != null) {
                    w.thread.interrupt(); // a task running on a thread of its own
                }
            }
            tryTerminate();
        } finally {
            mainLock.unlock();
        }
        return neverRan;
    }

    /** Moves the run state up to {@code target}, never down. */
    private void advanceRunState(int target) {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (loop.runState < target) {
                loop.runState = target;
            }
        } finally {
            mainLock.unlock();
        }
    }

    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            while (loop.runState != TERMINATED) {
                if (nanos <= 0L) {
                    return false;
                }
                nanos = termination.awaitNanos(nanos);
            }
            return true;
        } finally {
            mainLock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The roster

    /**
     * Interrupts the worker running a task, for its cancel(true), without taking mainLock. The
     * worker waits in the task's release() until the cancel is over, so the interrupt cannot reach
     * its next task. A task run by a thread outside the pool, through its own run(), is not
     * interrupted.
     *
     * @return the interrupted thread, for the canceller to unpark once the cancel is over; or null
     */
    @Nullable
    Thread interruptWorkerRunning(ScheduledTask<?> task) {
        for (PoolThread w : poolThreads) {
            if (w.running == task) {
                w.thread.interrupt();
                return w.thread;
            }
        }
        return null;
    }

    /** Returns the number of live workers. */
    int liveWorkers() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            return workers.size();
        } finally {
            mainLock.unlock();
        }
    }

    /** Returns a snapshot of the live worker threads. */
    List<Thread> workerThreads() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            return new ArrayList<>(workers);
        } finally {
            mainLock.unlock();
        }
    }
}
