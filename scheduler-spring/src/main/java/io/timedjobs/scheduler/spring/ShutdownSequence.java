package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The shutdown of one {@link LeaderFollowerTaskScheduler}'s engine: graceful or at once, the wait
 * that Spring's lifecycle phase timeout bounds, and the one log line that says what was lost.
 * Thread-safe: the lifecycle's stop, a waiter thread and destroy may call it concurrently.
 *
 * <p>A graceful close starts in the lifecycle's {@code stop(callback)} when Spring calls it: the
 * engine shuts down there, and a waiter thread calls back once the engine terminates or the await
 * period ends. Spring waits for that callback at most {@code
 * spring.lifecycle.timeout-per-shutdown-phase}; when destroy follows, whatever still runs is
 * interrupted at once instead of being waited for again. The close thus waits at most the shorter
 * of the await period and the phase timeout.
 */
final class ShutdownSequence {

    private final LeaderFollowerScheduler engine;
    private final String name;
    private final String threadNamePrefix;
    private final Log logger;

    /** Waiting tasks cancelled and running tasks interrupted so far. Guarded by this. */
    private int dropped;

    private int interrupted;

    /** Whether the graceful shutdown started (engine shut down, far tasks cancelled). Guarded by this. */
    private boolean gracefulStarted;

    /** Whether the summary line was logged. Guarded by this. */
    private boolean reported;

    ShutdownSequence(LeaderFollowerScheduler engine, String name, String threadNamePrefix, Log logger) {
        this.engine = engine;
        this.name = name;
        this.threadNamePrefix = threadNamePrefix;
        this.logger = logger;
    }

    /**
     * Shuts the engine down, letting queued tasks follow the shutdown policies; cancels at once
     * those due after the await period, since they could not run within it (with a period of zero,
     * every task not yet due).
     */
    synchronized void startGraceful(Duration period) {
        if (gracefulStarted) {
            return;
        }
        gracefulStarted = true;
        engine.shutdown();
        dropped += engine.cancelTasksDueAfter(TimeArguments.saturatedNanos(period), TimeUnit.NANOSECONDS);
    }

    synchronized boolean isGracefulStarted() {
        return gracefulStarted;
    }

    /**
     * Starts the graceful shutdown and returns at once; a daemon thread calls back when the engine
     * has terminated or the period has passed, whichever comes first.
     */
    void startGracefulThenCallBack(Duration period, Runnable callback) {
        startGraceful(period);
        Thread waiter = new Thread(
                () -> {
                    try {
                        engine.awaitTermination(TimeArguments.saturatedNanos(period), TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        callback.run();
                    }
                },
                threadNamePrefix + "close");
        waiter.setDaemon(true);
        waiter.start();
    }

    /** Waits up to the period for the engine to terminate; then ends it at once. */
    void awaitThenForce(Duration period) {
        if (period.isZero()) {
            return;
        }
        try {
            if (!engine.awaitTermination(TimeArguments.saturatedNanos(period), TimeUnit.NANOSECONDS)) {
                force("the await-termination period of " + period + " ended");
            }
        } catch (InterruptedException ex) {
            force("the thread closing it was interrupted");
            Thread.currentThread().interrupt();
        }
    }

    /** Interrupts running tasks and cancels waiting ones, unless the engine terminated already. */
    void force(@Nullable String reason) {
        if (engine.isTerminated()) {
            return;
        }
        int running = engine.getActiveCount();
        List<Runnable> neverRan = engine.shutdownNow();
        for (Runnable task : neverRan) {
            if (task instanceof Future<?> future) {
                future.cancel(true);
            }
        }
        synchronized (this) {
            interrupted += running;
            dropped += neverRan.size();
        }
        if (reason != null && running > 0) {
            logger.warn(name + " interrupted " + running + " running task(s): " + reason);
        }
    }

    /**
     * Logs, once, how many waiting tasks were dropped and running ones interrupted: at INFO when
     * anything was lost, else at DEBUG.
     */
    void report() {
        String line;
        boolean lost;
        synchronized (this) {
            if (reported) {
                return;
            }
            reported = true;
            lost = dropped > 0 || interrupted > 0;
            line = name + " shut down: " + dropped + " waiting task(s) dropped, " + interrupted
                    + " running task(s) interrupted";
        }
        if (lost) {
            logger.info(line);
        } else if (logger.isDebugEnabled()) {
            logger.debug(line);
        }
    }
}
