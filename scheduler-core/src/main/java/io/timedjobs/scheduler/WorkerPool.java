package io.timedjobs.scheduler;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; used by {@code LeaderFollowerScheduler} and by the tasks it makes: the engine behind
 * that scheduler, a fixed set of worker threads that take due tasks from one {@link
 * LeaderFollowerDelayQueue}.
 *
 * <p>This class accepts tasks and answers for the pool; its parts do the rest: {@link WorkerLoop}
 * is what a worker does with each task (with the run state and the counters), {@link
 * PoolLifecycle} starts and replaces the workers and shuts the pool down, {@link PoolSettings}
 * holds the configuration.
 */
final class WorkerPool extends ScheduledTask.Owner {

    private final boolean keepRepeatingAfterShutdown;
    private final boolean keepRepeatingAfterFailure;
    private final int poolSize;
    private final String name;

    private final LeaderFollowerDelayQueue queue;

    /** What each worker does with a task; holds the run state and the counters. */
    private final WorkerLoop loop;

    /** Starts and replaces the workers; runs shutdown and termination. */
    final PoolLifecycle lifecycle;

    private final LongAdder rejected = new LongAdder();

    public WorkerPool(PoolSettings settings) {
        super(
                settings.ticker(),
                settings.clock(),
                settings.misfirePolicy(),
                settings.errorHandler(),
                settings.oneShotErrorHandler(),
                settings.runGate());
        this.name = settings.name();
        this.poolSize = settings.poolSize();
        this.keepRepeatingAfterShutdown = settings.continueExistingPeriodicTasksAfterShutdown();
        this.keepRepeatingAfterFailure = settings.keepRepeatingAfterFailure();
        this.queue = new LeaderFollowerDelayQueue(ticker, !settings.tickerAdvancedByHand());
        Set<PoolThread> poolThreads = ConcurrentHashMap.newKeySet();
        this.loop = new WorkerLoop(settings, queue, poolThreads, this::ownThreadsEnded);
        this.lifecycle = new PoolLifecycle(settings, queue, loop, poolThreads);
    }

    /** Whether a ticker took {@link #timeAdvancedCallback()}, to wake this pool's leader as it moves. */
    private volatile boolean wokenByTicker;

    /** Returns the callback that a manual ticker runs after each advance. */
    public Runnable timeAdvancedCallback() {
        wokenByTicker = true;
        return queue::timeAdvanced;
    }

    /** Whether a ticker registered to wake this pool's leader as it moves. */
    boolean wokenByTicker() {
        return wokenByTicker;
    }

    // ---------------------------------------------------------------------------------------------
    // Submission

    private long triggerTime(long delay, TimeUnit unit) {
        // Nanoseconds tested here, where this call site's own profile sees them: TimeUnit's
        // conversion is profiled over every caller in the JVM, and compiled code that inlined it
        // for one unit is thrown away when another unit comes by.
        long nanos = unit == TimeUnit.NANOSECONDS ? delay : unit.toNanos(delay);
        return ScheduledTask.triggerTime(ticker.read(), nanos);
    }

    public ScheduledTask<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return submit(new ScheduledTask<>(this, command, triggerTime(delay, unit)));
    }

    public <V> ScheduledTask<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return submit(new CallableTask<>(this, callable, triggerTime(delay, unit)));
    }

    public <V> ScheduledTask<V> submit(Runnable command, @Nullable V result) {
        long now = ticker.read();
        return submit(
                result == null
                        ? new ScheduledTask<>(this, command, now)
                        : new RunnableWithResult<>(this, command, result, now));
    }

    public void execute(Runnable command) {
        submit(new ExecutedTask(this, command, ticker.read()));
    }

    /** Schedules a fixed-rate ({@code period > 0}) or fixed-delay ({@code period < 0}) task. */
    public ScheduledTask<?> schedulePeriodic(Runnable command, long initialDelay, long periodNanos, TimeUnit unit) {
        return submit(new PeriodicTask(this, command, triggerTime(initialDelay, unit), periodNanos));
    }

    public @Nullable ScheduledTask<?> scheduleRecurring(Runnable command, Recurrence recurrence) {
        Instant first = RecurringTask.firstExecution(recurrence, clock);
        if (first == null) {
            return null;
        }
        return submit(new RecurringTask(this, command, recurrence, first));
    }

    private <T extends ScheduledTask<?>> T submit(T task) {
        if (!queue.offer(task)) {
            throw reject(task);
        }
        if (!lifecycle.started) { // volatile read
            lifecycle.startWorkers(); // after the offer: the worker started early takes the task meanwhile
        }
        return task;
    }

    /** Counts a rejected task and returns the exception to throw; out of line, submit stays small. */
    private RejectedExecutionException reject(ScheduledTask<?> task) {
        rejected.increment();
        return new RejectedExecutionException(
                "Task " + task + " rejected from " + this + ": the scheduler has been shut down");
    }

    // ---------------------------------------------------------------------------------------------
    // Workers

    /**
     * Starts one worker, which parks until the first task comes: it costs no CPU, and the first
     * task then does not wait for a thread to start.
     */
    public void prestartWorker() {
        lifecycle.prestartWorker();
    }

    /** Called when the last task running on a thread of its own ended. */
    private void ownThreadsEnded() {
        lifecycle.ownThreadsEnded();
    }

    /** Interrupts the worker running a task, for its cancel(true); see {@link PoolLifecycle}. */
    @Override
    @Nullable
    Thread interruptWorkerRunning(ScheduledTask<?> task) {
        return lifecycle.interruptWorkerRunning(task);
    }

    // ---------------------------------------------------------------------------------------------
    // Callbacks from tasks

    @Override
    void onCancel(ScheduledTask<?> task) {
        // Always through the queue, never by the task's index: the task may be on its way from a
        // stripe into the queue right now, and only the queue knows how to find it safely.
        queue.remove(task);
    }

    /** Puts a repeating task back; cancels it when the shutdown policy says it must stop. */
    @Override
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
    @Override
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
        lifecycle.shutdown();
    }

    public List<Runnable> shutdownNow() {
        return lifecycle.shutdownNow();
    }

    /** Cancels the queued tasks due more than {@code delayNanos} from now; returns how many. */
    public int cancelDueAfter(long delayNanos) {
        List<ScheduledTask<?>> removed = queue.removeDueAfter(ScheduledTask.triggerTime(ticker.read(), delayNanos));
        for (ScheduledTask<?> task : removed) {
            task.cancel(false);
        }
        return removed.size();
    }

    public boolean isShutdown() {
        return loop.runState >= WorkerLoop.SHUTDOWN;
    }

    public boolean isTerminated() {
        return loop.runState == WorkerLoop.TERMINATED;
    }

    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return lifecycle.awaitTermination(timeout, unit);
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
        return (int) loop.active.sum();
    }

    public int poolSize() {
        return lifecycle.liveWorkers();
    }

    public int corePoolSize() {
        return poolSize;
    }

    public long completedCount() {
        return loop.completed.sum();
    }

    public long failedCount() {
        return loop.failed.sum();
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
        return lifecycle.workerThreads();
    }

    @Override
    public String toString() {
        String state = switch (loop.runState) {
            case WorkerLoop.RUNNING -> "Running";
            case WorkerLoop.SHUTDOWN -> "Shutting down";
            case WorkerLoop.STOP -> "Stopping";
            default -> "Terminated";
        };
        return name + "[" + state + ", workers = " + poolSize() + " of " + poolSize + ", active = " + loop.active.sum()
                + ", queued = " + queue.size() + ", completed = " + loop.completed.sum() + "]";
    }
}
