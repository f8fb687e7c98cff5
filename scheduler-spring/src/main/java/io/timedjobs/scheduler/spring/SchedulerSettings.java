package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.MisfirePolicy;
import io.timedjobs.scheduler.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Configured by one thread before {@link LeaderFollowerTaskScheduler#initialize()}: the settings
 * of a {@link LeaderFollowerTaskScheduler}, with the defaults and checks of Spring's {@code
 * ThreadPoolTaskScheduler}. Only that class extends it.
 *
 * <p>Engine settings are read once, when the engine is built; their setters refuse to run after
 * it. Lifecycle settings (how shutdown waits, the phase) may change until the context closes.
 */
public abstract class SchedulerSettings {

    /** The phase of Spring's executors and schedulers, which the scheduler shares by default. */
    public static final int DEFAULT_PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE;

    // Engine settings: read once by buildEngine().
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

    // Lifecycle settings, with the defaults of Spring's ExecutorConfigurationSupport; read by
    // whichever thread closes the context, hence volatile.
    private volatile boolean waitForTasksToCompleteOnShutdown;
    private volatile Duration awaitTerminationPeriod = Duration.ZERO;
    private volatile boolean acceptTasksAfterContextClose;
    private int phase = DEFAULT_PHASE;

    SchedulerSettings() {}

    /** Returns whether the engine is built, after which engine settings are refused. */
    abstract boolean isInitialized();

    /** Returns the scheduler's bean name, or null outside a Spring container. */
    abstract @Nullable String beanName();

    /** Returns the scheduler's name for messages: its class and bean name. */
    abstract String describe();

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
        String bean = beanName();
        return bean != null ? bean + "-" : "timed-jobs-";
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

    /**
     * Sets the most tasks running at once on virtual threads; default 0, no limit. Only with
     * {@linkplain #setVirtualThreads virtual threads}: initialization refuses it otherwise.
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

    /** Returns the most tasks running at once on virtual threads; 0 for no limit. */
    public int getConcurrencyLimit() {
        return concurrencyLimit;
    }

    /** Sets what fixed-rate tasks do after falling behind; default {@link MisfirePolicy#CATCH_UP}. */
    public void setMisfirePolicy(MisfirePolicy misfirePolicy) {
        checkNotInitialized("misfirePolicy");
        this.misfirePolicy = Objects.requireNonNull(misfirePolicy, "misfirePolicy");
    }

    /** Returns what fixed-rate tasks do after falling behind. */
    public MisfirePolicy getMisfirePolicy() {
        return misfirePolicy;
    }

    /**
     * Sets the monotonic time source of the engine; default {@link Ticker#system()}. With a ticker
     * that does not {@linkplain Ticker#movesWithRealTime() move with real time}, such as a {@link
     * io.timedjobs.scheduler.ManualTicker}, and no {@linkplain #setClock clock}, the ticker's clock
     * becomes the clock.
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

    /**
     * Returns the configured clock, else the clock of a ticker that does not move with real time
     * (a manual ticker's), else the system clock.
     */
    final Clock resolveClock() {
        Clock configured = clock;
        if (configured != null) {
            return configured;
        }
        Ticker configuredTicker = ticker;
        if (configuredTicker != null && !configuredTicker.movesWithRealTime()) {
            return configuredTicker.clock();
        }
        // A ticker that moves with real time agrees with any real clock: Spring's default zone.
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
     * Adds a step that edits the engine's builder after the scheduler has applied its own settings,
     * for options it does not expose (a thread factory, daemon threads).
     *
     * <p><b>NOTE:</b> a customizer that replaces the error handler or the one-shot error handler,
     * or turns off {@code keepRepeatingAfterFailure}, gives up Spring's error handling semantics
     * that {@link LeaderFollowerTaskScheduler} describes; one that replaces the run gate gives up
     * pausing, both the scheduler's and each job's.
     */
    public void addBuilderCustomizer(Consumer<LeaderFollowerScheduler.Builder> customizer) {
        checkNotInitialized("builderCustomizer");
        builderCustomizers.add(Objects.requireNonNull(customizer, "customizer"));
    }

    /**
     * Sets whether shutdown lets queued tasks and running tasks finish ({@code shutdown()}) rather
     * than interrupting running ones and dropping the queue ({@code shutdownNow()}); default
     * false. When true, closing the context does not shut the scheduler down early.
     */
    public void setWaitForTasksToCompleteOnShutdown(boolean waitForTasksToCompleteOnShutdown) {
        this.waitForTasksToCompleteOnShutdown = waitForTasksToCompleteOnShutdown;
    }

    /** Returns whether shutdown lets queued and running tasks finish. */
    public boolean isWaitForTasksToCompleteOnShutdown() {
        return waitForTasksToCompleteOnShutdown;
    }

    /**
     * Sets how long destroying the scheduler waits for it to terminate; default zero: it does not
     * wait. After the period, whatever still runs is interrupted and whatever still waits is
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

    /** Returns how long closing waits for the scheduler to terminate. */
    public Duration getAwaitTerminationPeriod() {
        return awaitTerminationPeriod;
    }

    /** Sets how long destroying the scheduler waits for termination, in milliseconds. */
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

    final boolean isAcceptTasksAfterContextClose() {
        return acceptTasksAfterContextClose;
    }

    /** Sets the lifecycle phase; default {@link #DEFAULT_PHASE}. */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    /** Returns the lifecycle phase, as {@link SmartLifecycle#getPhase()}. */
    public int getPhase() {
        return phase;
    }

    /**
     * Returns a builder for the engine with these settings and the given listener after the
     * configured ones, then edited by {@code wiring} (the scheduler's own hooks), then by the
     * customizers.
     */
    final LeaderFollowerScheduler.Builder engineBuilder(
            ExecutionListener lastListener, Consumer<LeaderFollowerScheduler.Builder> wiring) {
        LeaderFollowerScheduler.Builder builder = LeaderFollowerScheduler.builder()
                .poolSize(poolSize)
                .threadNamePrefix(getThreadNamePrefix())
                .virtualThreads(virtualThreads)
                .misfirePolicy(misfirePolicy)
                .clock(resolveClock())
                .executeExistingDelayedTasksAfterShutdown(executeExistingDelayedTasksAfterShutdown)
                .continueExistingPeriodicTasksAfterShutdown(continueExistingPeriodicTasksAfterShutdown)
                .keepRepeatingAfterFailure(true)
                .executionListener(CombinedListener.of(executionListeners, lastListener));
        if (concurrencyLimit > 0) {
            builder.concurrencyLimit(concurrencyLimit);
        }
        Ticker configuredTicker = ticker;
        if (configuredTicker != null) {
            builder.ticker(configuredTicker);
        }
        wiring.accept(builder);
        for (Consumer<LeaderFollowerScheduler.Builder> customizer : builderCustomizers) {
            customizer.accept(builder);
        }
        return builder;
    }

    private void checkNotInitialized(String setting) {
        if (isInitialized()) {
            throw new IllegalStateException(
                    "Set " + setting + " before " + describe() + " is initialized; it is read once, at start-up");
        }
    }
}
