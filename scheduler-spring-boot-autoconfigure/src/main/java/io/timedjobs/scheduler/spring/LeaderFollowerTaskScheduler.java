package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.MisfirePolicy;
import io.timedjobs.scheduler.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;
import org.springframework.scheduling.support.TaskUtils;
import org.springframework.util.ErrorHandler;

/**
 * A Spring {@link TaskScheduler} that runs its tasks on a {@link LeaderFollowerScheduler}.
 * Thread-safe once {@linkplain #initialize() initialized}; configure it before that.
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
public class LeaderFollowerTaskScheduler
        implements TaskScheduler,
                SmartLifecycle,
                ApplicationContextAware,
                ApplicationListener<ContextClosedEvent>,
                BeanNameAware,
                InitializingBean,
                DisposableBean {

    /** The phase of Spring's executors and schedulers, which this scheduler shares by default. */
    public static final int DEFAULT_PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE;

    private static final Log logger = LogFactory.getLog(LeaderFollowerTaskScheduler.class);

    // Engine settings: read once by initialize(); their setters refuse to run after it.
    private int poolSize = Math.max(2, Runtime.getRuntime().availableProcessors());
    /** Null until set: then threads are named after the bean, or timed-jobs- outside Spring. */
    private @Nullable String threadNamePrefix;

    private boolean virtualThreads;
    private int concurrencyLimit;
    private MisfirePolicy misfirePolicy = MisfirePolicy.CATCH_UP;
    private @Nullable Ticker ticker;
    private @Nullable Clock clock;
    private boolean executeExistingDelayedTasksAfterShutdown = true;
    private boolean continueExistingPeriodicTasksAfterShutdown;
    private final List<ExecutionListener> executionListeners = new ArrayList<>();
    private final List<Consumer<LeaderFollowerScheduler.Builder>> builderCustomizers = new ArrayList<>();

    // Lifecycle settings, with the defaults of Spring's ExecutorConfigurationSupport.
    private boolean waitForTasksToCompleteOnShutdown;
    private Duration awaitTerminationPeriod = Duration.ZERO;
    private boolean acceptTasksAfterContextClose;
    private int phase = DEFAULT_PHASE;

    // May change at any time; each task reads them when it runs or is scheduled.
    private volatile @Nullable ErrorHandler errorHandler;
    private volatile @Nullable TaskDecorator taskDecorator;

    private @Nullable String beanName;
    private @Nullable ApplicationContext applicationContext;

    /** The engine; null until initialize(). Written once, under this object's monitor. */
    private volatile @Nullable LeaderFollowerScheduler scheduler;

    private final PauseGate gate = new PauseGate();

    private final JobRegistry jobRegistry = new JobRegistry(this::beanNameOf, this::getClock);

    /**
     * Whether shutdown waits for destroy() instead of starting when the context closes; set by
     * the ContextClosedEvent when tasks must be waited for or still accepted.
     */
    private volatile boolean lateShutdown;

    /** How the engine shuts down; null until the first step of shutdown. Guarded by this. */
    private @Nullable ShutdownSequence shutdownSequence;

    // ---------------------------------------------------------------------------------------------
    // Configuration

    /**
     * Sets the number of worker threads; default the number of processors, at least 2.
     *
     * @throws IllegalArgumentException if {@code poolSize} is less than 1
     */
    public void setPoolSize(int poolSize) {
        checkNotInitialized("poolSize");
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
        }
        this.poolSize = poolSize;
    }

    /** Returns the configured number of worker threads. */
    public int getPoolSize() {
        return poolSize;
    }

    /**
     * Sets the prefix of worker thread names; default the bean name followed by {@code -}, as for
     * Spring's own schedulers, or {@code timed-jobs-} outside a Spring container.
     */
    public void setThreadNamePrefix(String threadNamePrefix) {
        checkNotInitialized("threadNamePrefix");
        this.threadNamePrefix = Objects.requireNonNull(threadNamePrefix, "threadNamePrefix");
    }

    /** Returns the prefix of worker thread names, the default included. */
    public String getThreadNamePrefix() {
        String prefix = threadNamePrefix;
        if (prefix != null) {
            return prefix;
        }
        return beanName != null ? beanName + "-" : "timed-jobs-";
    }

    /** Sets whether workers are virtual threads (JDK 21 or later); default false. */
    public void setVirtualThreads(boolean virtualThreads) {
        checkNotInitialized("virtualThreads");
        this.virtualThreads = virtualThreads;
    }

    /** Returns whether each due task runs on a virtual thread. */
    public boolean isVirtualThreads() {
        return virtualThreads;
    }

    /** Returns what fixed-rate tasks do after falling behind. */
    public MisfirePolicy getMisfirePolicy() {
        return misfirePolicy;
    }

    /**
     * Sets the most tasks running at once on virtual threads; default 0, no limit. Only with
     * {@linkplain #setVirtualThreads virtual threads}: {@link #initialize()} refuses it otherwise.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public void setConcurrencyLimit(int limit) {
        checkNotInitialized("concurrencyLimit");
        if (limit < 0) {
            throw new IllegalArgumentException("concurrencyLimit must be 0 (no limit) or more, was " + limit);
        }
        this.concurrencyLimit = limit;
    }

    /** Sets what fixed-rate tasks do after falling behind; default {@link MisfirePolicy#CATCH_UP}. */
    public void setMisfirePolicy(MisfirePolicy misfirePolicy) {
        checkNotInitialized("misfirePolicy");
        this.misfirePolicy = Objects.requireNonNull(misfirePolicy, "misfirePolicy");
    }

    /**
     * Sets the monotonic time source of the engine; default {@link Ticker#system()}. With a {@link
     * ManualTicker} and no {@linkplain #setClock clock}, the ticker's clock becomes the clock.
     */
    public void setTicker(Ticker ticker) {
        checkNotInitialized("ticker");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /**
     * Sets the wall clock that start times and triggers are read against; default the system
     * clock in the default time zone, as for Spring's schedulers.
     */
    public void setClock(Clock clock) {
        checkNotInitialized("clock");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Returns the wall clock that start times and triggers are read against. */
    @Override
    public Clock getClock() {
        LeaderFollowerScheduler engine = scheduler;
        return engine != null ? engine.getClock() : resolveClock();
    }

    private Clock resolveClock() {
        Clock configured = clock;
        if (configured != null) {
            return configured;
        }
        if (ticker instanceof ManualTicker manual) {
            return manual.clock();
        }
        return Clock.systemDefaultZone();
    }

    /**
     * Sets whether one-shot tasks still waiting at shutdown run when their time comes; default
     * true. When false they are cancelled at shutdown.
     */
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        checkNotInitialized("executeExistingDelayedTasksAfterShutdownPolicy");
        this.executeExistingDelayedTasksAfterShutdown = value;
    }

    /** Sets whether repeating tasks keep running after shutdown; default false. */
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        checkNotInitialized("continueExistingPeriodicTasksAfterShutdownPolicy");
        this.continueExistingPeriodicTasksAfterShutdown = value;
    }

    /**
     * Adds a listener told of every execution, with its lateness and duration; metrics use this.
     * Listeners are called on the worker thread, in the order added.
     */
    public void addExecutionListener(ExecutionListener listener) {
        checkNotInitialized("executionListener");
        executionListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Adds a step that edits the engine's builder after this scheduler has applied its own
     * settings, for options this class does not expose (a thread factory, daemon threads).
     *
     * <p><b>NOTE:</b> a customizer that replaces the error handler or turns off {@code
     * keepRepeatingAfterFailure} gives up Spring's error handling semantics described above.
     */
    public void addBuilderCustomizer(Consumer<LeaderFollowerScheduler.Builder> customizer) {
        checkNotInitialized("builderCustomizer");
        builderCustomizers.add(Objects.requireNonNull(customizer, "customizer"));
    }

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

    /**
     * Sets whether shutdown lets queued tasks and running tasks finish ({@code shutdown()}) rather
     * than interrupting running ones and dropping the queue ({@code shutdownNow()}); default
     * false. When true, closing the context does not shut the scheduler down early.
     */
    public void setWaitForTasksToCompleteOnShutdown(boolean waitForTasksToCompleteOnShutdown) {
        this.waitForTasksToCompleteOnShutdown = waitForTasksToCompleteOnShutdown;
    }

    /**
     * Sets how long {@link #destroy()} waits for the scheduler to terminate; default zero: it does
     * not wait. After the period, whatever still runs is interrupted and whatever still waits is
     * dropped, so that the JVM can exit.
     *
     * @throws IllegalArgumentException if {@code period} is negative
     */
    public void setAwaitTerminationPeriod(Duration period) {
        Objects.requireNonNull(period, "period");
        if (period.isNegative()) {
            throw new IllegalArgumentException("awaitTerminationPeriod must not be negative, was " + period);
        }
        this.awaitTerminationPeriod = period;
    }

    /** Returns whether shutdown lets queued and running tasks finish. */
    public boolean isWaitForTasksToCompleteOnShutdown() {
        return waitForTasksToCompleteOnShutdown;
    }

    /** Returns how long closing waits for the scheduler to terminate. */
    public Duration getAwaitTerminationPeriod() {
        return awaitTerminationPeriod;
    }

    /** Sets how long {@link #destroy()} waits for termination, in milliseconds. */
    public void setAwaitTerminationMillis(long millis) {
        setAwaitTerminationPeriod(Duration.ofMillis(millis));
    }

    /**
     * Sets whether the scheduler keeps accepting and running tasks while its context closes,
     * until it is destroyed; default false.
     */
    public void setAcceptTasksAfterContextClose(boolean acceptTasksAfterContextClose) {
        this.acceptTasksAfterContextClose = acceptTasksAfterContextClose;
    }

    /** Sets the lifecycle phase; default {@link #DEFAULT_PHASE}. */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    @Override
    public void setBeanName(String name) {
        this.beanName = name;
    }

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        this.applicationContext = applicationContext;
    }

    private void checkNotInitialized(String setting) {
        if (scheduler != null) {
            throw new IllegalStateException(
                    "Set " + setting + " before " + describe() + " is initialized; it is read once, at start-up");
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Initialization

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
        LeaderFollowerScheduler.Builder builder = LeaderFollowerScheduler.builder()
                .poolSize(poolSize)
                .threadNamePrefix(getThreadNamePrefix())
                .virtualThreads(virtualThreads)
                .misfirePolicy(misfirePolicy)
                .clock(resolveClock())
                .executeExistingDelayedTasksAfterShutdown(executeExistingDelayedTasksAfterShutdown)
                .continueExistingPeriodicTasksAfterShutdown(continueExistingPeriodicTasksAfterShutdown)
                .keepRepeatingAfterFailure(true)
                // In a context, the start-up report prestarts a worker once it knows this scheduler is used.
                .prestartWorker(applicationContext == null)
                .errorHandler(this::handleRepeatingFailure)
                .executionListener(combinedListener());
        if (concurrencyLimit > 0) {
            builder.concurrencyLimit(concurrencyLimit);
        }
        Ticker configuredTicker = ticker;
        if (configuredTicker != null) {
            builder.ticker(configuredTicker);
        }
        for (Consumer<LeaderFollowerScheduler.Builder> customizer : builderCustomizers) {
            customizer.accept(builder);
        }
        scheduler = builder.build();
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

    private ExecutionListener combinedListener() {
        List<ExecutionListener> all = new ArrayList<>(executionListeners);
        all.add(JobRegistry.recorder());
        ExecutionListener[] listeners = all.toArray(new ExecutionListener[0]);
        return new ExecutionListener() {
            @Override
            public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {
                for (ExecutionListener listener : listeners) {
                    listener.onExecution(latenessNanos, durationNanos, outcome);
                }
            }

            @Override
            public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
                for (ExecutionListener listener : listeners) {
                    listener.onExecution(work, latenessNanos, durationNanos, outcome);
                }
            }
        };
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

    private @Nullable String beanNameOf(Object target) {
        if (applicationContext instanceof ConfigurableApplicationContext context) {
            try {
                ConfigurableListableBeanFactory beans = context.getBeanFactory();
                for (String name : beans.getSingletonNames()) {
                    if (beans.getSingleton(name) == target) {
                        return name;
                    }
                }
            } catch (IllegalStateException closed) {
                return null;
            }
        }
        return null;
    }

    /**
     * Returns the engine, for its live figures ({@code getQueueSize()}, {@code getOverdue(...)})
     * or to use it as a {@code ScheduledExecutorService}.
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
        AdaptedTask wrapped = repeating(task, JobRegistry.describe(trigger));
        try {
            return wrapped.attach(engine.schedule(wrapped, new TriggerRecurrence(trigger)));
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        long delay = nanosUntil(startTime);
        LeaderFollowerScheduler engine = getScheduledExecutor();
        Runnable wrapped = oneShot(task);
        try {
            return engine.schedule(wrapped, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        return fixedRate(task, nanosUntil(startTime), period);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        return fixedRate(task, 0L, period);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        return fixedDelay(task, nanosUntil(startTime), delay);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        return fixedDelay(task, 0L, delay);
    }

    private ScheduledFuture<?> fixedRate(Runnable task, long initialDelayNanos, Duration period) {
        long periodNanos = positiveNanos(period, "period");
        LeaderFollowerScheduler engine = getScheduledExecutor();
        AdaptedTask wrapped = repeating(task, "every " + JobRegistry.words(period));
        try {
            return wrapped.attach(
                    engine.scheduleAtFixedRate(wrapped, initialDelayNanos, periodNanos, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    private ScheduledFuture<?> fixedDelay(Runnable task, long initialDelayNanos, Duration delay) {
        long delayNanos = positiveNanos(delay, "delay");
        LeaderFollowerScheduler engine = getScheduledExecutor();
        AdaptedTask wrapped = repeating(task, JobRegistry.words(delay) + " after each run");
        try {
            return wrapped.attach(
                    engine.scheduleWithFixedDelay(wrapped, initialDelayNanos, delayNanos, TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException ex) {
            throw rejected(task, ex);
        }
    }

    private long nanosUntil(Instant startTime) {
        Objects.requireNonNull(startTime, "startTime");
        Instant now = getClock().instant();
        long seconds = startTime.getEpochSecond() - now.getEpochSecond();
        long nanos = startTime.getNano() - now.getNano();
        // Saturates beyond about 285 years; the engine caps every delay at about 146 years anyway.
        if (seconds > 9_000_000_000L) {
            return Long.MAX_VALUE;
        }
        if (seconds < -9_000_000_000L) {
            return Long.MIN_VALUE;
        }
        return seconds * 1_000_000_000L + nanos;
    }

    private static long positiveNanos(Duration duration, String name) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + duration);
        }
        return Math.max(1L, saturatedNanos(duration));
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private TaskRejectedException rejected(Runnable task, RejectedExecutionException ex) {
        return new TaskRejectedException(describe() + " did not accept task " + task + ": it has been shut down", ex);
    }

    // ---------------------------------------------------------------------------------------------
    // Task wrapping: pause gate outermost, then the decorator, then (one-shot only) error handling.
    // Failures of repeating tasks travel to the engine, which counts them and calls
    // handleRepeatingFailure.

    private AdaptedTask repeating(Runnable task, String schedule) {
        Objects.requireNonNull(task, "task");
        return new AdaptedTask(decorate(task), jobRegistry.track(task, schedule));
    }

    private Runnable oneShot(Runnable task) {
        Objects.requireNonNull(task, "task");
        return new AdaptedTask(decorate(task), null);
    }

    private Runnable decorate(Runnable task) {
        TaskDecorator decorator = taskDecorator;
        return decorator != null ? decorator.decorate(task) : task;
    }

    private void handleRepeatingFailure(Throwable failure) {
        ErrorHandler handler = errorHandler;
        (handler != null ? handler : TaskUtils.LOG_AND_SUPPRESS_ERROR_HANDLER).handleError(failure);
    }

    /**
     * What the engine runs for each scheduled task: passes the pause gate, and for a one-shot task
     * reports a failure to the error handler (by default: logs it and lets it reach the future).
     * One object per task: a repeating task's failures reach the error handler through the engine.
     */
    private final class AdaptedTask implements Runnable, JobRegistry.JobWork {
        private final Runnable task;
        /** The repeating job this task runs; null for a one-shot task. */
        private final @Nullable TrackedJob job;

        AdaptedTask(Runnable task, @Nullable TrackedJob job) {
            this.task = task;
            this.job = job;
        }

        @Override
        public @Nullable TrackedJob trackedJob() {
            return job;
        }

        ScheduledFuture<?> attach(ScheduledFuture<?> future) {
            TrackedJob tracked = job;
            if (tracked != null) {
                tracked.attach(future);
            }
            return future;
        }

        @Override
        public void run() {
            gate.enter();
            try {
                TrackedJob tracked = job;
                if (tracked == null) {
                    runOneShot();
                } else if (tracked.isPaused()) {
                    tracked.skipping();
                } else {
                    task.run();
                }
            } finally {
                gate.exit();
            }
        }

        private void runOneShot() {
            try {
                task.run();
            } catch (Throwable failure) {
                ErrorHandler handler = errorHandler;
                (handler != null ? handler : TaskUtils.LOG_AND_PROPAGATE_ERROR_HANDLER).handleError(failure);
            }
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Lifecycle

    /** Resumes after {@link #stop()}: tasks that came due meanwhile run now. */
    @Override
    public void start() {
        gate.start();
    }

    /** Pauses: tasks that come due wait until {@link #start()}; running ones finish. */
    @Override
    public void stop() {
        if (!lateShutdown) {
            gate.stop(null);
        }
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
        if (gate.isShutdown()) {
            callback.run();
        } else if (lateShutdown) {
            if (waitForTasksToCompleteOnShutdown && !acceptTasksAfterContextClose && !awaitTerminationPeriod.isZero()) {
                shutdownSequence().startGracefulThenCallBack(awaitTerminationPeriod, callback);
            } else {
                callback.run();
            }
        } else {
            gate.stop(callback);
        }
    }

    @Override
    public boolean isRunning() {
        LeaderFollowerScheduler engine = scheduler;
        return engine != null && !gate.isPaused() && !engine.isTerminated();
    }

    /**
     * When this scheduler's own context starts closing: shuts down at once, unless it must wait
     * for its tasks or keep accepting them, in which case shutdown waits for the lifecycle's
     * {@link #stop(Runnable)} or for {@link #destroy()}.
     */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() != applicationContext) {
            return;
        }
        if (acceptTasksAfterContextClose || waitForTasksToCompleteOnShutdown) {
            lateShutdown = true;
        } else {
            gate.markShutdown();
            LeaderFollowerScheduler engine = scheduler;
            if (engine != null) {
                engine.shutdown();
            }
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
        LeaderFollowerScheduler engine = scheduler;
        if (engine == null) {
            return;
        }
        if (logger.isDebugEnabled()) {
            logger.debug("Shutting down " + describe());
        }
        gate.markShutdown();
        ShutdownSequence sequence = shutdownSequence();
        Duration period = awaitTerminationPeriod;
        if (!waitForTasksToCompleteOnShutdown) {
            sequence.force(null);
            sequence.awaitThenForce(period);
        } else if (sequence.isGracefulStarted()) {
            sequence.force("they did not finish within the await-termination period or Spring's shutdown phase"
                    + " timeout, whichever is shorter");
        } else {
            sequence.startGraceful(period);
            sequence.awaitThenForce(period);
        }
        sequence.report();
    }

    private synchronized ShutdownSequence shutdownSequence() {
        ShutdownSequence sequence = shutdownSequence;
        if (sequence == null) {
            sequence = new ShutdownSequence(getScheduledExecutor(), describe(), getThreadNamePrefix(), logger);
            shutdownSequence = sequence;
        }
        return sequence;
    }

    private String describe() {
        return beanName != null ? "LeaderFollowerTaskScheduler '" + beanName + "'" : "LeaderFollowerTaskScheduler";
    }

    @Override
    public String toString() {
        LeaderFollowerScheduler engine = scheduler;
        return describe() + (engine != null ? " on " + engine : " (not initialized)");
    }
}
