package io.timedjobs.scheduler.spring;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Holds tasks back while the scheduler's lifecycle is stopped, and tells the stopper when the last
 * running task has finished. Every task passes {@link #enter()} before it runs and {@link #exit()}
 * after. Thread-safe.
 *
 * <p>A stopped (paused) gate blocks the worker that carries a task until {@link #start()} or until
 * the scheduler shuts down, so that a context refresh cycle ({@code stop()} then {@code start()})
 * neither loses nor duplicates executions.
 *
 * <p>While the gate is open, passing it costs two atomic increments and no lock: every execution
 * goes through here. The lock is for pausing, waiting and the stop callback only.
 */
final class PauseGate {

    private final ReentrantLock lock = new ReentrantLock();

    /** Signalled when the gate opens again or the scheduler shuts down. */
    private final Condition opened = lock.newCondition();

    /** Whether tasks must wait. Written under lock; read without it by {@link #isPaused()}. */
    private volatile boolean paused;

    /** Whether the scheduler is shutting down: from then on nobody waits. */
    private volatile boolean shutdown;

    /**
     * Tasks between enter() and exit(). A task counts itself before it reads {@link #paused}, and
     * stop() sets paused before it reads this count; so either the task sees the pause or stop()
     * sees the task.
     */
    private final AtomicInteger running = new AtomicInteger();

    /**
     * Run once {@link #running} drops to zero while paused, by the thread that brings it there,
     * before that thread does anything else; then cleared. Whoever stopped the gate waits for it
     * (Spring's lifecycle processor, up to its phase timeout), so it is never held back and never
     * dropped: {@link #start()} runs a callback still pending. Guarded by lock.
     */
    private @Nullable Runnable stopCallback;

    /** Runs on each entering thread right after it counted itself; a no-op outside tests. */
    private final Runnable afterCounting;

    PauseGate() {
        this(() -> {});
    }

    /**
     * Creates a gate that runs {@code afterCounting} on each entering thread between counting
     * itself and reading the pause flag, so that tests can hold a thread at that point.
     */
    PauseGate(Runnable afterCounting) {
        this.afterCounting = afterCounting;
    }

    /**
     * Opens the gate. A stop callback still pending runs now: the stop it waited for is over, and
     * its caller must not wait for a pause that no longer exists.
     */
    void start() {
        Runnable superseded;
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            paused = false;
            superseded = stopCallback;
            stopCallback = null;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
        if (superseded != null) {
            superseded.run();
        }
    }

    /**
     * Pauses; the callback runs when no task is running any more (at once if none is). A stop
     * without callback keeps the callback of an earlier stop pending; two callbacks both run.
     */
    void stop(@Nullable Runnable callback) {
        Runnable runNow = null;
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            paused = true;
            Runnable combined = both(stopCallback, callback);
            if (running.get() == 0) {
                stopCallback = null;
                runNow = combined;
            } else {
                stopCallback = combined;
            }
        } finally {
            lock.unlock();
        }
        if (runNow != null) {
            runNow.run();
        }
    }

    /** Opens the gate for good: waiting tasks go on, so that shutdown can drain them. */
    void markShutdown() {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            shutdown = true;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    boolean isShutdown() {
        return shutdown;
    }

    boolean isPaused() {
        return paused;
    }

    /**
     * Counts the calling thread as running, after waiting while the gate is paused.
     *
     * @return false if the thread was interrupted while it waited (a {@code cancel(true)} or a
     *     {@code shutdownNow}): it is counted all the same, and keeps its interrupt status
     */
    boolean enter() {
        running.incrementAndGet();
        afterCounting.run();
        if (paused && !shutdown) {
            return awaitOpen();
        }
        return true;
    }

    /**
     * Waits, not counted as running, until the gate opens or shuts down; then counts again. A
     * thread that uncounts the last running task calls the stopper back first, at once.
     */
    private boolean awaitOpen() {
        boolean entered = true;
        Runnable callback = null;
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            if (running.decrementAndGet() == 0) {
                callback = takeStopCallback();
            }
        } finally {
            lock.unlock();
        }
        try {
            if (callback != null) {
                callback.run();
            }
        } finally {
            lock.lock();
            try {
                while (paused && !shutdown) {
                    opened.await();
                }
            } catch (InterruptedException e) {
                // cancel(true) or shutdownNow while paused: the caller gives up on the run
                Thread.currentThread().interrupt();
                entered = false;
            } finally {
                // under the lock, so that a stop() right after start() sees this task running
                running.incrementAndGet();
                lock.unlock();
            }
        }
        return entered;
    }

    void exit() {
        if (running.decrementAndGet() == 0 && paused) {
            Runnable callback;
            final ReentrantLock lock = this.lock;
            lock.lock();
            try {
                callback = running.get() == 0 ? takeStopCallback() : null;
            } finally {
                lock.unlock();
            }
            if (callback != null) {
                callback.run();
            }
        }
    }

    private static @Nullable Runnable both(@Nullable Runnable first, @Nullable Runnable second) {
        if (first == null) {
            return second;
        }
        if (second == null) {
            return first;
        }
        return () -> {
            first.run();
            second.run();
        };
    }

    /** Returns and clears the stop callback if the gate is paused. Called under lock. */
    private @Nullable Runnable takeStopCallback() {
        if (!paused) {
            return null;
        }
        Runnable callback = stopCallback;
        stopCallback = null;
        return callback;
    }
}
