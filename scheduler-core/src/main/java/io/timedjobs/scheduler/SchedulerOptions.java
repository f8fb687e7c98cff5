package io.timedjobs.scheduler;

import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe; extended by {@link LeaderFollowerScheduler.Builder} alone: the options of a
 * scheduler, each checked as it is set, with its default. The class is package-private so that
 * users see one builder type, {@code LeaderFollowerScheduler.Builder}, whose methods these public
 * setters are.
 */
abstract class SchedulerOptions {

    private static final AtomicInteger SCHEDULER_NUMBER = new AtomicInteger();

    private int poolSize = Math.max(2, Runtime.getRuntime().availableProcessors());
    private @Nullable ThreadFactory threadFactory;
    private String threadNamePrefix = "timed-jobs-";
    private boolean daemon;
    private boolean virtualThreads;
    private int concurrencyLimit;
    private Ticker ticker = Ticker.system();
    private @Nullable Clock clock;
    private MisfirePolicy misfirePolicy = MisfirePolicy.CATCH_UP;
    private TaskErrorHandler errorHandler = TaskErrorHandler.logging();
    private ExecutionListener executionListener = ExecutionListener.none();
    private @Nullable RunGate runGate;
    private @Nullable TaskErrorHandler oneShotErrorHandler;
    private boolean executeExistingDelayedTasksAfterShutdown = true;
    private boolean continueExistingPeriodicTasksAfterShutdown;
    private boolean keepRepeatingAfterFailure;
    private boolean prestartWorker = true;

    SchedulerOptions() {}

    /** Returns this, as the builder type that every setter returns. */
    abstract LeaderFollowerScheduler.Builder self();

    /**
     * Sets the number of worker threads; default: the number of processors, at least 2.
     *
     * @throws IllegalArgumentException if {@code poolSize} is less than 1
     */
    public LeaderFollowerScheduler.Builder poolSize(int poolSize) {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
        }
        this.poolSize = poolSize;
        return self();
    }

    /** Sets the prefix of worker thread names, followed by a number; default {@code timed-jobs-}. */
    public LeaderFollowerScheduler.Builder threadNamePrefix(String threadNamePrefix) {
        this.threadNamePrefix = Objects.requireNonNull(threadNamePrefix, "threadNamePrefix");
        return self();
    }

    /**
     * Sets whether the named platform threads are daemon threads; default false, like the
     * JDK's executors. Ignored with a thread factory or virtual threads.
     */
    public LeaderFollowerScheduler.Builder daemon(boolean daemon) {
        this.daemon = daemon;
        return self();
    }

    /** Sets the factory that makes the worker threads, instead of named platform threads. */
    public LeaderFollowerScheduler.Builder threadFactory(ThreadFactory threadFactory) {
        this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
        return self();
    }

    /**
     * Sets whether every due task starts at once on a virtual thread of its own, named with the
     * prefix; default false. The workers (virtual threads too, unless a thread factory is set)
     * then only wait for tasks to come due, so a slow task holds back no other task due at the
     * same time, however small the pool. Needs JDK 21 or later: {@link LeaderFollowerScheduler.Builder#build()} fails with
     * {@link IllegalStateException} on an older JVM.
     */
    public LeaderFollowerScheduler.Builder virtualThreads(boolean virtualThreads) {
        this.virtualThreads = virtualThreads;
        return self();
    }

    /**
     * With {@linkplain #virtualThreads virtual threads}, sets the most tasks running at once;
     * a due task beyond it starts when a running one ends. Default: no limit. Without virtual
     * threads the pool size is the limit, and {@link LeaderFollowerScheduler.Builder#build()} refuses this setting.
     *
     * @throws IllegalArgumentException if {@code limit} is less than 1
     */
    public LeaderFollowerScheduler.Builder concurrencyLimit(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("concurrencyLimit must be at least 1, was " + limit);
        }
        this.concurrencyLimit = limit;
        return self();
    }

    /**
     * Sets the monotonic time source; default {@link Ticker#system()}. Give a {@link
     * ManualTicker} in tests: the scheduler then moves only when the ticker is advanced.
     */
    public LeaderFollowerScheduler.Builder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return self();
    }

    /**
     * Sets the wall clock that {@link Recurrence} rules see and that decides when their
     * executions may start; default the {@linkplain Ticker#clock() ticker's clock}: the system UTC
     * clock, or the clock of a {@link ManualTicker} when one is the ticker.
     */
    public LeaderFollowerScheduler.Builder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /** Sets what fixed-rate tasks do after falling behind; default {@link MisfirePolicy#CATCH_UP}. */
    public LeaderFollowerScheduler.Builder misfirePolicy(MisfirePolicy misfirePolicy) {
        this.misfirePolicy = Objects.requireNonNull(misfirePolicy, "misfirePolicy");
        return self();
    }

    /**
     * Sets the handler for failures of repeating tasks and of tasks given to {@code execute};
     * default {@link TaskErrorHandler#logging()}.
     */
    public LeaderFollowerScheduler.Builder errorHandler(TaskErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
        return self();
    }

    /**
     * Sets the handler that sees each failure of a one-shot task ({@code schedule} with a
     * delay, {@code submit}) on the worker, before the task's future completes: if the handler
     * returns, the future completes normally with {@code null}; if it throws, the future
     * completes with what it threw. The execution counts as failed either way. Default none:
     * the future holds the failure and nothing else sees it, as with the JDK's scheduler.
     * Tasks given to {@code execute} go to the {@linkplain #errorHandler error handler}.
     */
    public LeaderFollowerScheduler.Builder oneShotErrorHandler(TaskErrorHandler oneShotErrorHandler) {
        this.oneShotErrorHandler = Objects.requireNonNull(oneShotErrorHandler, "oneShotErrorHandler");
        return self();
    }

    /**
     * Sets the gate every execution passes, on the thread that runs it; default none, which
     * costs nothing per execution. See {@link RunGate} for what a skipped execution does and
     * how it is counted.
     */
    public LeaderFollowerScheduler.Builder runGate(RunGate runGate) {
        this.runGate = Objects.requireNonNull(runGate, "runGate");
        return self();
    }

    /** Sets the listener told of every execution; default none. */
    public LeaderFollowerScheduler.Builder executionListener(ExecutionListener executionListener) {
        this.executionListener = Objects.requireNonNull(executionListener, "executionListener");
        return self();
    }

    /**
     * Sets whether one-shot tasks still waiting for their time at shutdown run when it comes;
     * default true. When false they are cancelled at shutdown. Tasks already due run either way.
     */
    public LeaderFollowerScheduler.Builder executeExistingDelayedTasksAfterShutdown(boolean value) {
        this.executeExistingDelayedTasksAfterShutdown = value;
        return self();
    }

    /**
     * Sets whether repeating tasks keep running after shutdown (until {@code shutdownNow});
     * default false: they are cancelled at shutdown.
     */
    public LeaderFollowerScheduler.Builder continueExistingPeriodicTasksAfterShutdown(boolean value) {
        this.continueExistingPeriodicTasksAfterShutdown = value;
        return self();
    }

    /**
     * Sets whether a repeating task that throws keeps its schedule, as Spring's schedulers do;
     * default false: like the JDK, it stops and its future completes with the exception. The
     * error handler sees the failure either way, and can stop the task by throwing.
     */
    public LeaderFollowerScheduler.Builder keepRepeatingAfterFailure(boolean value) {
        this.keepRepeatingAfterFailure = value;
        return self();
    }

    /**
     * Sets whether {@link LeaderFollowerScheduler.Builder#build()} starts one worker, parked until the first task comes, so
     * that the first due task does not wait for a thread to start; default true. Without it
     * the workers start with the first submitted task, or at {@link
     * LeaderFollowerScheduler#prestartWorker()}.
     */
    public LeaderFollowerScheduler.Builder prestartWorker(boolean value) {
        this.prestartWorker = value;
        return self();
    }

    /** Whether {@code build()} starts one worker right away. */
    final boolean prestartsWorker() {
        return prestartWorker;
    }

    /**
     * Checks the options together and returns the pool's settings, with a new scheduler number.
     *
     * @throws IllegalStateException if the options do not fit together, or virtual threads were
     *     asked for on a JVM without them
     */
    final PoolSettings poolSettings() {
        if (concurrencyLimit > 0 && !virtualThreads) {
            throw new IllegalStateException(
                    "concurrencyLimit applies to virtual threads only; without them the pool size is the limit");
        }
        int number = SCHEDULER_NUMBER.incrementAndGet();
        ThreadFactory taskThreads = virtualThreads ? DefaultThreadFactories.virtual(threadNamePrefix) : null;
        ThreadFactory factory = threadFactory;
        if (factory == null) {
            factory = taskThreads != null ? taskThreads : DefaultThreadFactories.named(threadNamePrefix, daemon);
        }
        Clock wallClock = clock != null ? clock : ticker.clock();
        return new PoolSettings(
                "LeaderFollowerScheduler-" + number,
                poolSize,
                factory,
                ticker,
                !ticker.movesWithRealTime(),
                wallClock,
                misfirePolicy,
                errorHandler,
                executionListener,
                executeExistingDelayedTasksAfterShutdown,
                continueExistingPeriodicTasksAfterShutdown,
                keepRepeatingAfterFailure,
                taskThreads,
                concurrencyLimit,
                runGate,
                oneShotErrorHandler);
    }
}
