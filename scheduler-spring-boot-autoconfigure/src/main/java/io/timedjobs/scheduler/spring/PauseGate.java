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

    /** Run once {@link #running} drops to zero while paused; then cleared. Guarded by lock. */
    private @Nullable Runnable stopCallback;

    void start() {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            paused = false;
            stopCallback = null;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Pauses; the callback runs when no task is running any more (at once if none is). */
    void stop(@Nullable Runnable callback) {
        Runnable runNow = null;
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            paused = true;
            if (running.get() == 0) {
                stopCallback = null;
                runNow = callback;
            } else {
                stopCallback = callback;
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

    void enter() {
        running.incrementAndGet();
        if (paused && !shutdown) {
            awaitOpen();
        }
    }

    /** Waits, not counted as running, until the gate opens or shuts down; then counts again. */
    private void awaitOpen() {
        Runnable callback = null;
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            if (running.decrementAndGet() == 0) {
                callback = takeStopCallback();
            }
            while (paused && !shutdown) {
                opened.await();
            }
        } catch (InterruptedException e) {
            // shutdownNow while paused: let the task see the interrupt
            Thread.currentThread().interrupt();
        } finally {
            running.incrementAndGet();
            lock.unlock();
        }
        if (callback != null) {
            callback.run();
        }
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
