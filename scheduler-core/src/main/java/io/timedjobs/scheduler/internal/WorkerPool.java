package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.MisfirePolicy;
import io.timedjobs.scheduler.Recurrence;
import io.timedjobs.scheduler.RunGate;
import io.timedjobs.scheduler.TaskErrorHandler;
import io.timedjobs.scheduler.Ticker;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The engine behind {@code LeaderFollowerScheduler}: a fixed set of worker threads that take due
 * tasks from one {@link LeaderFollowerDelayQueue}, plus the run state and the counters.
 *
 * <p>This class is thread-safe.
 */
public final class WorkerPool {

    /*
     * Run state, only ever increasing:
     *   RUNNING    accepts tasks
     *   SHUTDOWN   accepts none; runs what the shutdown policy kept; workers exit when the queue
     *              is empty
     *   STOP       accepts none, runs none; running tasks were interrupted
     *   TERMINATED no worker left
     * Transitions happen under mainLock; the queue keeps its own copy of "shut down" and "stopped"
     * under its lock, which is what makes a submission and a shutdown atomic to each other.
     */
    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOP = 2;
    private static final int TERMINATED = 3;

    /**
     * The longest delay kept as is: about 146 years. Longer ones are cut to it, so that the
     * difference of any two due times still fits in a long and the heap order stays right.
     */
    static final long MAX_DELAY = Long.MAX_VALUE >>> 1;

    final Ticker ticker;
    final Clock clock;
    final MisfirePolicy misfirePolicy;
    final TaskErrorHandler errorHandler;

    /** Sees the failures of one-shot tasks before their futures do; null to leave them to the futures. */
    final @Nullable TaskErrorHandler oneShotErrorHandler;

    /**
     * Called around every execution, or null: final, so a pool without one pays a null check per
     * task and no volatile read.
     */
    final @Nullable RunGate runGate;

    private final ExecutionListener listener;

    /** Whether executions are timed: only a listener needs the two ticker reads per task. */
    private final boolean timed;

    private final boolean keepDelayedAfterShutdown;
    private final boolean keepRepeatingAfterShutdown;
    private final boolean keepRepeatingAfterFailure;
    private final int poolSize;
    private final ThreadFactory threadFactory;
    private final String name;

    private final LeaderFollowerDelayQueue queue;

    /**
     * Where each due task runs on a thread of its own (virtual threads), or null: then each task
     * runs on the worker that took it. The pool terminates only when none of those threads is left,
     * and a task that puts itself back after the last worker left gets a new worker.
     */
    private final @Nullable TaskThreads taskThreads;

    /**
     * Guards the run state's transitions and the set of workers.
     *
     * <p>Lock order: mainLock first, then the queue's lock, never the other way round. Code that
     * holds the queue's lock calls nothing that takes mainLock; a task's cancel(true), which runs
     * on any thread and may find its task running, finds the worker through {@link #waiters}
     * without mainLock, so a worker waiting for that cancel in its task's release() never waits
     * behind whoever holds mainLock.
     */
    private final ReentrantLock mainLock = new ReentrantLock();

    private final Condition termination = mainLock.newCondition();

    /** Live workers. Guarded by mainLock. */
    private final HashSet<Thread> workers = new HashSet<>();

    /**
     * The queue's view of each live worker, which also says what it runs. Changed under mainLock;
     * read without it by a cancel(true), which may miss a worker that starts meanwhile (it runs no
     * task yet) and is not hurt by one that leaves (it runs no task any more).
     */
    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();

    private volatile int runState = RUNNING;

    /**
     * Run by shutdown() after it marked the pool and before it closes the queue; null but in tests
     * that force a submission into that window.
     */
    volatile @Nullable Runnable afterShutdownMarked;

    /**
     * Whether all workers were started. One starts with the scheduler ({@link #prestartWorker}),
     * so that the first task does not wait for a thread to start; the others start right after
     * the first submission was queued.
     */
    private volatile boolean started;

    /** Workers running a task; striped, since every worker writes it twice per task. */
    private final LongAdder active = new LongAdder();

    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder rejected = new LongAdder();

    /** Every setting of the pool; validated by the public builder. */
    public record Settings(
            String name,
            int poolSize,
            ThreadFactory threadFactory,
            Ticker ticker,
            boolean tickerIsManual,
            Clock clock,
            MisfirePolicy misfirePolicy,
            TaskErrorHandler errorHandler,
            ExecutionListener listener,
            boolean executeExistingDelayedTasksAfterShutdown,
            boolean continueExistingPeriodicTasksAfterShutdown,
            boolean keepRepeatingAfterFailure,
            @Nullable ThreadFactory taskThreadFactory,
            int concurrencyLimit,
            @Nullable RunGate runGate,
            @Nullable TaskErrorHandler oneShotErrorHandler) {

        /**
         * @param taskThreadFactory makes a thread of its own for each due task (a virtual thread);
         *     null to run each task on the worker that took it
         * @param concurrencyLimit with a task thread factory, the most tasks running at once; 0 for
         *     no limit
         * @param runGate called around every execution; null for none
         * @param oneShotErrorHandler sees each failure of a one-shot task before its future; null to
         *     leave the failure to the future alone
         */
        public Settings {}
    }

    public WorkerPool(Settings settings) {
        this.name = settings.name();
        this.poolSize = settings.poolSize();
        this.threadFactory = settings.threadFactory();
        this.ticker = settings.ticker();
        this.clock = settings.clock();
        this.misfirePolicy = settings.misfirePolicy();
        this.errorHandler = settings.errorHandler();
        this.oneShotErrorHandler = settings.oneShotErrorHandler();
        this.runGate = settings.runGate();
        this.listener = settings.listener();
        this.timed = listener != ExecutionListener.none();
        this.keepDelayedAfterShutdown = settings.executeExistingDelayedTasksAfterShutdown();
        this.keepRepeatingAfterShutdown = settings.continueExistingPeriodicTasksAfterShutdown();
        this.keepRepeatingAfterFailure = settings.keepRepeatingAfterFailure();
        this.queue = new LeaderFollowerDelayQueue(ticker, !settings.tickerIsManual());
        ThreadFactory perTask = settings.taskThreadFactory();
        this.taskThreads = perTask == null
                ? null
                : new TaskThreads(perTask, settings.concurrencyLimit(), this::runOnOwnThread, this::ownThreadsEnded);
    }

    /** Returns the callback that a manual ticker runs after each advance. */
    public Runnable timeAdvancedCallback() {
        return queue::timeAdvanced;
    }

    // ---------------------------------------------------------------------------------------------
    // Submission

    /** Returns {@code now + delay}, with a negative delay meaning "now" and a huge one capped. */
    static long triggerTime(long now, long delayNanos) {
        return now + (delayNanos <= 0L ? 0L : Math.min(delayNanos, MAX_DELAY));
    }

    private long triggerTime(long delay, TimeUnit unit) {
        return triggerTime(ticker.read(), unit.toNanos(delay));
    }

    public ScheduledTask<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return submit(new ScheduledTask<>(this, command, triggerTime(delay, unit)));
    }

    public <V> ScheduledTask<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return submit(new ScheduledTask.CallableTask<>(this, callable, triggerTime(delay, unit)));
    }

    public <V> ScheduledTask<V> submit(Runnable command, @Nullable V result) {
        long now = ticker.read();
        return submit(
                result == null
                        ? new ScheduledTask<>(this, command, now)
                        : new ScheduledTask.RunnableWithResult<>(this, command, result, now));
    }

    public void execute(Runnable command) {
        submit(new ExecutedTask(this, command, ticker.read()));
    }

    /** Schedules a fixed-rate ({@code period > 0}) or fixed-delay ({@code period < 0}) task. */
    public ScheduledTask<?> schedulePeriodic(Runnable command, long initialDelay, long periodNanos, TimeUnit unit) {
        return submit(new PeriodicTask(this, command, triggerTime(initialDelay, unit), periodNanos));
    }

    public @Nullable ScheduledTask<?> scheduleRecurring(Runnable command, Recurrence recurrence) {
        Instant first = recurrence.nextExecution(new FirstExecutionContext(clock));
        if (first == null) {
            return null;
        }
        return submit(new RecurringTask(this, command, recurrence, first));
    }

    private <T extends ScheduledTask<?>> T submit(T task) {
        if (!queue.offer(task)) {
            rejected.increment();
            throw new RejectedExecutionException(
                    "Task " + task + " rejected from " + this + ": the scheduler has been shut down");
        }
        if (!started) {
            startWorkers(); // after the offer: the worker started early takes the task meanwhile
        }
        return task;
    }

    // ---------------------------------------------------------------------------------------------
    // Workers

    /**
     * Starts one worker, which parks until the first task comes: it costs no CPU, and the first
     * task then does not wait for a thread to start.
     */
    public void prestartWorker() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (!started && runState == RUNNING && workers.isEmpty()) {
                addWorker();
            }
        } finally {
            mainLock.unlock();
        }
    }

    private void startWorkers() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (started || runState != RUNNING) {
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

    private void runWorker() {
        boolean abrupt = true;
        Waiter me = new Waiter(Thread.currentThread());
        mainLock.lock();
        try {
            waiters.add(me);
        } finally {
            mainLock.unlock();
        }
        try {
            for (; ; ) {
                ScheduledTask<?> task = queue.take(me);
                if (task == null) {
                    break;
                }
                TaskThreads own = taskThreads;
                if (own != null) {
                    own.start(task, () -> runState >= STOP); // stopping: the task never runs
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
            abrupt = false;
        } finally {
            workerExited(me, abrupt);
        }
    }

    /** Runs a task on its own thread, registered so that its cancel(true) finds the thread. */
    private void runOnOwnThread(ScheduledTask<?> task) {
        Waiter me = new Waiter(Thread.currentThread());
        me.running = task;
        waiters.add(me);
        try {
            runTask(task);
        } finally {
            waiters.remove(me);
        }
    }

    /** Called when the last task running on a thread of its own ended. */
    private void ownThreadsEnded() {
        if (runState >= SHUTDOWN) {
            final ReentrantLock mainLock = this.mainLock;
            mainLock.lock();
            try {
                tryTerminate();
            } finally {
                mainLock.unlock();
            }
        }
    }

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
        for (Waiter w : waiters) {
            if (w.running == task) {
                w.thread.interrupt();
                return w.thread;
            }
        }
        return null;
    }

    private void runTask(ScheduledTask<?> task) {
        // An interrupt left over from a cancel(true) must not hit the next task; after
        // shutdownNow every task must see one.
        if (runState >= STOP) {
            task.cancel(false);
            return;
        }
        Thread.interrupted();
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

    private void workerExited(Waiter worker, boolean abrupt) {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            waiters.remove(worker);
            workers.remove(worker.thread);
            if (abrupt && runState < STOP && (runState == RUNNING || queue.hasTasks())) {
                addWorker();
            }
            tryTerminate();
        } finally {
            mainLock.unlock();
        }
    }

    /**
     * Moves to TERMINATED when nothing is left to do. A task accepted before the queue closed may
     * have found no worker (none had started yet, or the last one was leaving): then one starts
     * to run it, for accepting and shutting down are atomic to each other only if every accepted
     * task is run or cancelled by the shutdown policy. Called under mainLock.
     */
    private void tryTerminate() {
        if (runState < SHUTDOWN || runState == TERMINATED || !workers.isEmpty()) {
            return;
        }
        if (runState == SHUTDOWN && queue.hasTasks()) {
            addWorker();
            return;
        }
        if (taskThreads != null && taskThreads.running() > 0) {
            return; // the last task on a thread of its own calls again when it ends
        }
        runState = TERMINATED;
        termination.signalAll();
    }

    // ---------------------------------------------------------------------------------------------
    // Callbacks from tasks

    void onCancel(ScheduledTask<?> task) {
        // Always through the queue, never by the task's index: the task may be on its way from a
        // stripe into the queue right now, and only the queue knows how to find it safely.
        queue.remove(task);
    }

    /** Puts a repeating task back; cancels it when the shutdown policy says it must stop. */
    void requeue(ScheduledTask<?> task) {
        if (!queue.requeue(task, keepRepeatingAfterShutdown)) {
            task.cancel(false);
        }
    }

    /**
     * Reports a repeating task's failure to the error handler.
     *
     * @return null if the task keeps its schedule, else the Throwable to complete its future with
     */
    @Nullable
    Throwable handleRepeatingFailure(Throwable failure) {
        try {
            errorHandler.handleError(failure);
        } catch (Throwable fromHandler) {
            return fromHandler;
        }
        return keepRepeatingAfterFailure ? null : failure;
    }

    // ---------------------------------------------------------------------------------------------
    // Shutdown

    public void shutdown() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (runState < SHUTDOWN) {
                runState = SHUTDOWN;
            }
        } finally {
            mainLock.unlock();
        }
        Runnable hook = afterShutdownMarked;
        if (hook != null) {
            hook.run();
        }
        for (ScheduledTask<?> dropped : queue.shutdown(keepDelayedAfterShutdown, keepRepeatingAfterShutdown)) {
            dropped.cancel(false);
        }
        mainLock.lock();
        try {
            tryTerminate();
        } finally {
            mainLock.unlock();
        }
    }

    public List<Runnable> shutdownNow() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            if (runState < STOP) {
                runState = STOP;
            }
        } finally {
            mainLock.unlock();
        }
        List<Runnable> neverRan = new ArrayList<>(queue.stop());
        mainLock.lock();
        try {
            for (Thread worker : workers) {
                worker.interrupt();
            }
            for (Waiter w : waiters) {
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

    /** Cancels the queued tasks due more than {@code delayNanos} from now; returns how many. */
    public int cancelDueAfter(long delayNanos) {
        List<ScheduledTask<?>> removed = queue.removeDueAfter(triggerTime(ticker.read(), delayNanos));
        for (ScheduledTask<?> task : removed) {
            task.cancel(false);
        }
        return removed.size();
    }

    public boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    public boolean isTerminated() {
        return runState == TERMINATED;
    }

    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            while (runState != TERMINATED) {
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
    // Figures

    public Ticker ticker() {
        return ticker;
    }

    public Clock clock() {
        return clock;
    }

    public int queueSize() {
        return queue.size();
    }

    public int activeCount() {
        return (int) active.sum();
    }

    public int poolSize() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            return workers.size();
        } finally {
            mainLock.unlock();
        }
    }

    public int corePoolSize() {
        return poolSize;
    }

    public long completedCount() {
        return completed.sum();
    }

    public long failedCount() {
        return failed.sum();
    }

    public long rejectedCount() {
        return rejected.sum();
    }

    public long overdueNanos() {
        return queue.overdueNanos();
    }

    /** Whether a waiting task is due now, its due time included; see LeaderFollowerDelayQueue. */
    public boolean hasDueTask() {
        return queue.hasDueTask();
    }

    /** Returns the queue; for tests of the protocol. */
    public LeaderFollowerDelayQueue queue() {
        return queue;
    }

    /** Returns a snapshot of the live worker threads; for tests of the protocol. */
    public List<Thread> workerThreads() {
        final ReentrantLock mainLock = this.mainLock;
        mainLock.lock();
        try {
            return new ArrayList<>(workers);
        } finally {
            mainLock.unlock();
        }
    }

    @Override
    public String toString() {
        String state = switch (runState) {
            case RUNNING -> "Running";
            case SHUTDOWN -> "Shutting down";
            case STOP -> "Stopping";
            default -> "Terminated";
        };
        return name + "[" + state + ", workers = " + poolSize() + " of " + poolSize + ", active = " + active.sum()
                + ", queued = " + queue.size() + ", completed = " + completed.sum() + "]";
    }

    private record FirstExecutionContext(Clock clock) implements Recurrence.Context {
        @Override
        public @Nullable Instant lastScheduled() {
            return null;
        }

        @Override
        public @Nullable Instant lastStarted() {
            return null;
        }

        @Override
        public @Nullable Instant lastCompleted() {
            return null;
        }
    }
}
