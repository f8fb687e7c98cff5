package io.timedjobs.scheduler;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ScheduledExecutorService} whose fixed pool of workers takes tasks from one
 * leader-follower delay queue. Thread-safe.
 *
 * <p>Build one with {@link #builder()}:
 *
 * <pre>{@code
 * LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder()
 *         .poolSize(4)
 *         .threadNamePrefix("jobs-")
 *         .misfirePolicy(MisfirePolicy.SKIP)
 *         .build();
 * }</pre>
 *
 * <p>It behaves like {@link java.util.concurrent.ScheduledThreadPoolExecutor} with a fixed pool,
 * with these differences:
 *
 * <ul>
 *   <li>A cancelled task leaves the queue at once and keeps no memory (the JDK keeps it until its
 *       due time unless {@code setRemoveOnCancelPolicy(true)} is set). {@code cancel} never
 *       blocks: if another thread holds the queue's lock at that moment, that thread removes the
 *       task before it lets the lock go.
 *   <li>Fixed-rate tasks that fall behind follow a {@link MisfirePolicy}: catch up (the JDK's
 *       behaviour) or skip to the next slot.
 *   <li>Tasks can repeat by a {@link Recurrence} rule (cron, Spring triggers); those never start
 *       before their wall-clock instant.
 *   <li>Failures that no future reports go to a {@link TaskErrorHandler} instead of vanishing,
 *       and every execution is reported to an {@link ExecutionListener}, with its lateness.
 *   <li>One worker starts with the scheduler, parked, so that the first task does not wait for a
 *       thread to start; the others start with the first submission. While no task is due, no
 *       worker wakes up.
 * </ul>
 *
 * <p><b>NOTE:</b> a delay longer than about 146 years is cut to that; such a task stays pending
 * without overflowing the queue's arithmetic.
 */
public final class LeaderFollowerScheduler extends AbstractExecutorService
        implements ScheduledExecutorService, AutoCloseable {

    private final WorkerPool pool;

    private LeaderFollowerScheduler(WorkerPool pool) {
        this.pool = pool;
    }

    /** Returns a builder with the defaults described on each of its methods. */
    public static Builder builder() {
        return new Builder();
    }

    // ---------------------------------------------------------------------------------------------
    // ScheduledExecutorService

    /**
     * Runs a task once after a delay; a delay of zero or less means as soon as a worker is free.
     *
     * @throws RejectedExecutionException after shutdown
     * @throws NullPointerException if {@code command} or {@code unit} is null
     */
    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        return pool.schedule(command, delay, unit);
    }

    /**
     * Runs a task once after a delay and returns its result through the future.
     *
     * @throws RejectedExecutionException after shutdown
     * @throws NullPointerException if {@code callable} or {@code unit} is null
     */
    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        Objects.requireNonNull(unit, "unit");
        return pool.schedule(callable, delay, unit);
    }

    /**
     * Runs a task at a fixed rate: the n-th execution is due at {@code initialDelay + n * period}.
     * Executions of one task never overlap; one that runs long delays the next, and the
     * {@linkplain Builder#misfirePolicy misfire policy} decides what happens to the ones missed.
     *
     * @throws IllegalArgumentException if {@code period} is not positive
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (period <= 0L) {
            throw new IllegalArgumentException("period must be positive, was " + period + " " + unit);
        }
        return pool.schedulePeriodic(command, initialDelay, Math.max(1L, unit.toNanos(period)), unit);
    }

    /**
     * Runs a task repeatedly with a fixed delay between the end of one execution and the start of
     * the next.
     *
     * @throws IllegalArgumentException if {@code delay} is not positive
     */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (delay <= 0L) {
            throw new IllegalArgumentException("delay must be positive, was " + delay + " " + unit);
        }
        return pool.schedulePeriodic(command, initialDelay, -Math.max(1L, unit.toNanos(delay)), unit);
    }

    /**
     * Runs a task repeatedly at the instants a rule computes, one execution at a time. Cron
     * expressions and Spring triggers use this.
     *
     * <p>Each execution waits for its instant by the wall {@linkplain Builder#clock clock}, never
     * starting before it. When the rule returns {@code null} the task ends and its future
     * completes normally.
     *
     * @return the future of the whole series, or {@code null} if the rule gives no first execution
     * @throws RejectedExecutionException after shutdown
     */
    public @Nullable ScheduledFuture<?> schedule(Runnable command, Recurrence recurrence) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(recurrence, "recurrence");
        return pool.scheduleRecurring(command, recurrence);
    }

    // ---------------------------------------------------------------------------------------------
    // ExecutorService

    /**
     * Runs a task as soon as a worker is free. Nothing reports its failure but the
     * {@linkplain Builder#errorHandler error handler}.
     */
    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command");
        pool.execute(command);
    }

    @Override
    public Future<?> submit(Runnable task) {
        Objects.requireNonNull(task, "task");
        return pool.submit(task, null);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        return pool.submit(task, result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        Objects.requireNonNull(task, "task");
        return pool.schedule(task, 0L, TimeUnit.NANOSECONDS);
    }

    /**
     * Stops accepting tasks. Queued one-shot tasks still run, or are cancelled if
     * {@code executeExistingDelayedTasksAfterShutdown} is off (those already due run anyway);
     * repeating tasks stop unless {@code continueExistingPeriodicTasksAfterShutdown} is on. Returns
     * at once; see {@link #awaitTermination}.
     */
    @Override
    public void shutdown() {
        pool.shutdown();
    }

    /**
     * Stops accepting tasks, interrupts running ones and returns the queued tasks, which never ran
     * and are left as they are (not cancelled).
     */
    @Override
    public List<Runnable> shutdownNow() {
        return pool.shutdownNow();
    }

    /**
     * Cancels every waiting task due more than the given delay from now, repeating ones included.
     * Meant for a graceful shutdown with a deadline: after {@link #shutdown()}, waiting for
     * termination for a while is pointless if a task due later holds it up, and such a task would
     * be dropped at the deadline anyway. Running tasks are not affected.
     *
     * @return the number of tasks cancelled
     */
    public int cancelTasksDueAfter(long delay, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return pool.cancelDueAfter(unit.toNanos(delay));
    }

    @Override
    public boolean isShutdown() {
        return pool.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return pool.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return pool.awaitTermination(timeout, unit);
    }

    /**
     * Shuts down and waits until every remaining task has run, so that try-with-resources works on
     * every JDK. If the waiting thread is interrupted, it calls {@link #shutdownNow()}, keeps
     * waiting, and restores the interrupt before returning.
     */
    @Override
    public void close() {
        boolean interrupted = false;
        shutdown();
        while (!isTerminated()) {
            try {
                awaitTermination(1L, TimeUnit.DAYS);
            } catch (InterruptedException e) {
                if (!interrupted) {
                    shutdownNow();
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Live figures, cheap enough for metric gauges

    /** Returns the number of tasks waiting in the queue (not counting running ones). */
    public int getQueueSize() {
        return pool.queueSize();
    }

    /** Returns the number of workers running a task right now. */
    public int getActiveCount() {
        return pool.activeCount();
    }

    /**
     * Starts one worker, parked until the first task comes, unless a worker was started already:
     * the first due task then does not wait for a thread to start. Costs no CPU while nothing is
     * due; does nothing after shutdown.
     */
    public void prestartWorker() {
        pool.prestartWorker();
    }

    /** Returns the number of live worker threads; 1 before the first submission. */
    public int getPoolSize() {
        return pool.poolSize();
    }

    /** Returns the configured number of workers. */
    public int getCorePoolSize() {
        return pool.corePoolSize();
    }

    /**
     * Returns the number of executions finished so far, failed ones included; executions a {@link
     * RunGate} skipped are not counted.
     */
    public long getCompletedTaskCount() {
        return pool.completedCount();
    }

    /**
     * Returns the number of executions that threw, including one-shot tasks whose failure the
     * {@linkplain Builder#oneShotErrorHandler one-shot error handler} suppressed.
     */
    public long getFailedTaskCount() {
        return pool.failedCount();
    }

    /** Returns the number of submissions rejected because the scheduler was shut down. */
    public long getRejectedTaskCount() {
        return pool.rejectedCount();
    }

    /**
     * Returns how far the most overdue waiting task is past its due time right now, or 0 when no
     * waiting task is due: a measure of whether the pool is falling behind.
     */
    public long getOverdue(TimeUnit unit) {
        return unit.convert(pool.overdueNanos(), TimeUnit.NANOSECONDS);
    }

    /** Returns the monotonic time source of this scheduler. */
    public Ticker getTicker() {
        return pool.ticker();
    }

    /** Returns the wall clock that {@link Recurrence} rules are evaluated with. */
    public Clock getClock() {
        return pool.clock();
    }

    WorkerPool pool() {
        return pool;
    }

    @Override
    public String toString() {
        return pool.toString();
    }

    /**
     * Builds a {@link LeaderFollowerScheduler}. Not thread-safe; each call of {@link #build()}
     * returns a new scheduler. Each setter checks its value, returns this builder, and names its
     * default.
     */
    public static final class Builder extends SchedulerOptions {

        private Builder() {}

        @Override
        Builder self() {
            return this;
        }

        /**
         * Builds the scheduler and, unless told otherwise, starts one worker, which waits parked for
         * the first task; the other workers start with the first submitted task.
         *
         * @throws IllegalStateException if virtual threads were asked for on a JVM without them, or
         *     a concurrency limit without virtual threads
         */
        public LeaderFollowerScheduler build() {
            PoolSettings settings = poolSettings();
            WorkerPool pool = new WorkerPool(settings);
            LeaderFollowerScheduler scheduler = new LeaderFollowerScheduler(pool);
            settings.ticker().register(scheduler);
            if (!settings.ticker().movesWithRealTime() && !pool.wokenByTicker()) {
                // its leader would wait for a move nobody announces, and never run a task
                throw new IllegalArgumentException("The ticker " + settings.ticker() + " does not move with real time"
                        + " but did not register to wake the scheduler as it moves; use ManualTicker, or a ticker"
                        + " whose movesWithRealTime() answers true");
            }
            if (prestartsWorker()) {
                pool.prestartWorker();
            }
            return scheduler;
        }
    }
}
