package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.TaskUtils;
import org.springframework.util.ErrorHandler;

/**
 * A Spring {@link TaskScheduler} that runs its tasks on a {@link LeaderFollowerScheduler}.
 * Thread-safe once {@linkplain #initialize() initialized}; configure it before that (the settings
 * are those of {@link SchedulerSettings}).
 *
 * <p>It is a drop-in for Spring's {@code ThreadPoolTaskScheduler} wherever a {@code TaskScheduler}
 * is asked for, {@code @Scheduled} methods included, and follows its conventions:
 *
 * <ul>
 *   <li>Every time given as an {@link Instant} is read against {@link #getClock()}, which is also
 *       the wall clock of the engine: {@link Trigger}s (cron expressions among them) see it in
 *       their {@code TriggerContext}, and their executions never start before the instant the
 *       trigger returned by that clock.
 *   <li>A repeating task that throws is reported to the {@link ErrorHandler} (by default: logged)
 *       and keeps its schedule; an error handler that throws ends it. A one-shot task that throws
 *       is logged and its future completes with the exception. The engine counts both as failed
 *       executions.
 *   <li>A {@link TaskDecorator} wraps each task, once per schedule call.
 *   <li>After shutdown every schedule method throws {@link TaskRejectedException}.
 *   <li>As a {@link SmartLifecycle} in the phase of Spring's executors, it pauses on {@link
 *       #stop()} (tasks that come due wait, running ones finish) and resumes on {@link #start()}.
 *       It reacts to {@link ContextClosedEvent} as Spring's executors do: unless it must wait for
 *       tasks or keep accepting them, it shuts down as soon as its context starts closing.
 * </ul>
 *
 * <p><b>NOTE:</b> unlike {@code ThreadPoolTaskScheduler}, this class is not an {@code Executor}:
 * it never becomes a candidate for {@code @Async} or for Spring Boot's {@code
 * applicationTaskExecutor}.
 *
 * <p>Outside Spring, call {@link #initialize()} after configuring it and {@link #destroy()} when
 * done.
 */
public class LeaderFollowerTaskScheduler extends SchedulerSettings
        implements TaskScheduler,
                SmartLifecycle,
                ApplicationContextAware,
                ApplicationListener<ContextClosedEvent>,
                BeanNameAware,
                InitializingBean,
                DisposableBean {

    private static final Log logger = LogFactory.getLog(LeaderFollowerTaskScheduler.class);

    // May change at any time; each task reads them when it runs or is scheduled.
    private volatile @Nullable ErrorHandler errorHandler;
    private volatile @Nullable TaskDecorator taskDecorator;

    private @Nullable String beanName;
    private @Nullable ApplicationContext applicationContext;

    /** The engine; null until initialize(). Written once, under this object's monitor. */
    private volatile @Nullable LeaderFollowerScheduler scheduler;

    private final JobRegistry jobRegistry =
            new JobRegistry(target -> BeanNames.singletonName(applicationContext, target), this::getClock);

    private final SchedulerLifecycle lifecycle =
            new SchedulerLifecycle(this, this::getScheduledExecutor, logger, jobRegistry);

    // ---------------------------------------------------------------------------------------------
    // Configuration that may change at any time, and the container's callbacks

    /**
     * Sets the handler for failures of tasks; default: a repeating task's failure is logged and
     * the task keeps running, a one-shot task's failure is logged and reaches its future. A
     * custom handler sees both; for a one-shot task, the future completes normally unless the
     * handler throws.
     */
    public void setErrorHandler(@Nullable ErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
    }

    /** Sets a decorator applied to each task when it is scheduled; default none. */
    public void setTaskDecorator(@Nullable TaskDecorator taskDecorator) {
        this.taskDecorator = taskDecorator;
    }

    /** Returns the wall clock that start times and triggers are read against. */
    @Override
    public Clock getClock() {
        LeaderFollowerScheduler engine = scheduler;
        return engine != null ? engine.getClock() : resolveClock();
    }

    @Override
    public void setBeanName(String name) {
        this.beanName = name;
    }

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        this.applicationContext = applicationContext;
    }

    @Override
    final @Nullable String beanName() {
        return beanName;
    }

    @Override
    final boolean isInitialized() {
        return scheduler != null;
    }

    // ---------------------------------------------------------------------------------------------
    // Initialization and access

    @Override
    public void afterPropertiesSet() {
        initialize();
    }

    /**
     * Builds the engine from the settings. Its workers start with the first task. Calling it again
     * does nothing.
     *
     * @throws IllegalStateException if virtual threads were asked for on a JVM without them
     */
    public synchronized void initialize() {
        if (scheduler != null) {
            return;
        }
        scheduler = engineBuilder(JobRegistry.recorder(), this::addHooks).build();
    }

    /** Gives the engine the hooks through which it keeps Spring's semantics. */
    private void addHooks(LeaderFollowerScheduler.Builder builder) {
        builder.errorHandler(this::handleRepeatingFailure)
                .oneShotErrorHandler(this::handleOneShotFailure)
                .runGate(new JobRunGate(lifecycle.gate()))
                // In a context, the start-up report prestarts a worker once it knows this scheduler is used.
                .prestartWorker(applicationContext == null);
    }

    /**
     * Starts one worker, parked until the first task comes, so that the first due task does not
     * wait for a thread to start; does nothing before {@link #initialize()} or when a worker runs
     * already. Outside an application context, {@code initialize()} does it; inside one, the
     * starter calls it once start-up shows that this scheduler runs {@code @Scheduled} jobs, so that
     * a scheduler the application routed around starts no thread.
     */
    public void prestartWorker() {
        LeaderFollowerScheduler engine = scheduler;
        if (engine != null) {
            engine.prestartWorker();
        }
    }

    /** Returns the repeating jobs of this scheduler, to list them, pause them or run them now. */
    public JobRegistry getJobRegistry() {
        return jobRegistry;
    }

    /**
     * Runs a job's work once, now, outside its schedule; its schedule is untouched.
     *
     * @throws TaskRejectedException if this scheduler is shut down
     */
    public ScheduledFuture<?> runNow(TrackedJob job) {
        return schedule(job.runOnce(), getClock().instant());
    }

    /**
     * Returns the engine, for its live figures ({@code getQueueSize()}, {@code getOverdue(...)})
     * or to use it as a {@code ScheduledExecutorService}.
     *
     * <p><b>NOTE:</b> tasks given to it directly are this scheduler's too: they wait while it is
     * {@linkplain #stop() stopped}, and a one-shot task's failure goes to the {@linkplain
     * #setErrorHandler error handler} (by default: logged, then held by its future).
     *
     * @throws IllegalStateException if this scheduler is not initialized yet
     */
    public LeaderFollowerScheduler getScheduledExecutor() {
        LeaderFollowerScheduler engine = scheduler;
        if (engine == null) {
            throw new IllegalStateException(
                    describe() + " is not initialized: call initialize() or let Spring create it as a bean");
        }
        return engine;
    }

    // ---------------------------------------------------------------------------------------------
    // TaskScheduler

    /**
     * Runs a task whenever the trigger says, one execution at a time, never before the instant
     * the trigger returned (by {@link #getClock()}).
     *
     * @return the future of the whole series, or {@code null} if the trigger gives no first
     *     execution
     */
    @Override
    public @Nullable ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        Objects.requireNonNull(trigger, "trigger");
        LeaderFollowerScheduler engine = getScheduledExecutor();
        JobTask wrapped = repeating(task, JobRegistry.describe(trigger));
        try {
            return attach(wrapped, engine.schedule(wrapped, new TriggerRecurrence(trigger, wrapped.trackedJob())));
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        long delay = TimeArguments.nanosUntil(startTime, getClock());
        LeaderFollowerScheduler engine = getScheduledExecutor();
        Objects.requireNonNull(task, "task");
        try {
            return engine.schedule(decorate(task), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        return fixedRate(task, TimeArguments.nanosUntil(startTime, getClock()), period);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        return fixedRate(task, 0L, period);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        return fixedDelay(task, TimeArguments.nanosUntil(startTime, getClock()), delay);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        return fixedDelay(task, 0L, delay);
    }

    private ScheduledFuture<?> fixedRate(Runnable task, long initialDelayNanos, Duration period) {
        long periodNanos = TimeArguments.positiveNanos(period, "period");
        LeaderFollowerScheduler engine = getScheduledExecutor();
        JobTask wrapped = repeating(task, "every " + JobRegistry.words(period));
        wrapped.trackedJob().fixedRate(periodNanos);
        try {
            return attach(
                    wrapped, engine.scheduleAtFixedRate(wrapped, initialDelayNanos, periodNanos, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    private ScheduledFuture<?> fixedDelay(Runnable task, long initialDelayNanos, Duration delay) {
        long delayNanos = TimeArguments.positiveNanos(delay, "delay");
        LeaderFollowerScheduler engine = getScheduledExecutor();
        JobTask wrapped = repeating(task, JobRegistry.words(delay) + " after each run");
        try {
            return attach(
                    wrapped,
                    engine.scheduleWithFixedDelay(wrapped, initialDelayNanos, delayNanos, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    private TaskRejectedException rejected(Runnable task, RejectedExecutionException ex) {
        return new TaskRejectedException(describe() + " did not accept task " + task + ": it has been shut down", ex);
    }

    // ---------------------------------------------------------------------------------------------
    // What the engine runs: a one-shot task as it is (decorated), a repeating one in a JobTask that
    // carries its TrackedJob. Around every execution the engine calls the JobRunGate; failures go
    // to handleRepeatingFailure or handleOneShotFailure, from the engine.

    private JobTask repeating(Runnable task, String schedule) {
        Objects.requireNonNull(task, "task");
        return new JobTask(decorate(task), jobRegistry.track(task, schedule));
    }

    private static ScheduledFuture<?> attach(JobTask wrapped, ScheduledFuture<?> future) {
        wrapped.trackedJob().attach(future);
        return future;
    }

    private Runnable decorate(Runnable task) {
        TaskDecorator decorator = taskDecorator;
        return decorator != null ? decorator.decorate(task) : task;
    }

    private void handleRepeatingFailure(Throwable failure) {
        ErrorHandler handler = errorHandler;
        (handler != null ? handler : TaskUtils.LOG_AND_SUPPRESS_ERROR_HANDLER).handleError(failure);
    }

    /** Reports a one-shot task's failure; by default logs it and rethrows it to reach the future. */
    private void handleOneShotFailure(Throwable failure) {
        ErrorHandler handler = errorHandler;
        (handler != null ? handler : TaskUtils.LOG_AND_PROPAGATE_ERROR_HANDLER).handleError(failure);
    }

    // ---------------------------------------------------------------------------------------------
    // Lifecycle

    /** Resumes after {@link #stop()}: tasks that came due meanwhile run now. */
    @Override
    public void start() {
        lifecycle.start();
    }

    /** Pauses: tasks that come due wait until {@link #start()}; running ones finish. */
    @Override
    public void stop() {
        lifecycle.stop();
    }

    /**
     * Pauses, and runs the callback once no task is running. While the context closes, it does
     * not pause: if the scheduler shut down early (it does not wait for tasks), the callback runs
     * at once and {@link #destroy()} interrupts running tasks; if it waits for its tasks, the
     * graceful shutdown starts here and the callback runs once the scheduler has terminated or
     * the await period has passed, so that Spring's {@code timeout-per-shutdown-phase} bounds the
     * wait too (see {@link #shutdown()}).
     */
    @Override
    public void stop(Runnable callback) {
        lifecycle.stop(callback);
    }

    @Override
    public boolean isRunning() {
        LeaderFollowerScheduler engine = scheduler;
        return engine != null && !lifecycle.isPaused() && !engine.isTerminated();
    }

    /**
     * When this scheduler's own context starts closing: shuts down at once, unless it must wait
     * for its tasks or keep accepting them, in which case shutdown waits for the lifecycle's
     * {@link #stop(Runnable)} or for {@link #destroy()}.
     */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == applicationContext) {
            lifecycle.contextClosing(scheduler);
        }
    }

    /** Shuts the scheduler down; see {@link #shutdown()}. */
    @Override
    public void destroy() {
        shutdown();
    }

    /**
     * Shuts the scheduler down: gracefully if it {@linkplain #setWaitForTasksToCompleteOnShutdown
     * waits for tasks} (queued tasks then follow the shutdown policies, and those due after the
     * {@linkplain #setAwaitTerminationPeriod await period} are cancelled at once, since they could
     * not run within it: with a period of zero, every task not yet due), else by interrupting
     * running tasks and cancelling queued ones; then waits up to the await period. When the
     * graceful shutdown already started in the lifecycle's {@link #stop(Runnable)}, Spring has
     * waited for it (up to its phase timeout), and whatever still runs is interrupted now. Logs
     * one line saying how many waiting tasks were dropped and running ones interrupted.
     */
    public void shutdown() {
        if (scheduler != null) {
            lifecycle.shutdown();
        }
    }

    @Override
    final String describe() {
        return beanName != null ? "LeaderFollowerTaskScheduler '" + beanName + "'" : "LeaderFollowerTaskScheduler";
    }

    @Override
    public String toString() {
        LeaderFollowerScheduler engine = scheduler;
        return describe() + (engine != null ? " on " + engine : " (not initialized)");
    }
}
