package io.timedjobs.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: any worker starts tasks here. Each due task runs on a thread of its own (a virtual
 * thread, in practice), so that the workers only do the timing and a slow task holds back no other
 * task due at the same time; an optional limit bounds how many run at once.
 */
final class ThreadPerTask {

    private final ThreadFactory factory;

    /** Permits for tasks running at once, or null for no limit. */
    private final @Nullable Semaphore limit;

    /** What runs a task on its thread: the pool registers the thread for cancel(true), then runs it. */
    private final Consumer<ScheduledTask<?>> body;

    /** Called whenever the last running task ends: the pool may terminate then. */
    private final Runnable lastEnded;

    /** Tasks started and not yet ended. */
    private final AtomicInteger running = new AtomicInteger();

    /**
     * Tasks handed over by a worker whose thread has not begun them yet. Whoever removes a task
     * owns it: its own thread, which then runs it, or shutdownNow, which returns it as never run.
     */
    private final Set<ScheduledTask<?>> unstarted = ConcurrentHashMap.newKeySet();

    /** @param concurrencyLimit the most tasks running at once; 0 for no limit */
    ThreadPerTask(ThreadFactory factory, int concurrencyLimit, Consumer<ScheduledTask<?>> body, Runnable lastEnded) {
        this.factory = factory;
        this.limit = concurrencyLimit > 0 ? new Semaphore(concurrencyLimit) : null;
        this.body = body;
        this.lastEnded = lastEnded;
    }

    /** Returns the number of tasks started and not yet ended. */
    int running() {
        return running.get();
    }

    /**
     * Starts a task on a thread of its own, once the limit lets it. Called by a worker, which goes
     * back to the queue right after; it waits here while the limit is reached.
     *
     * @param stopping whether the pool stops: then a worker interrupted while waiting cancels the
     *     task, which never runs
     */
    void start(ScheduledTask<?> task, BooleanSupplier stopping) {
        unstarted.add(task);
        Semaphore permits = limit;
        if (permits != null) {
            for (; ; ) {
                try {
                    permits.acquire();
                    break;
                } catch (InterruptedException e) {
                    if (stopping.getAsBoolean()) {
                        if (unstarted.remove(task)) { // else shutdownNow returned it
                            task.cancel(false);
                        }
                        return;
                    }
                }
            }
        }
        running.incrementAndGet();
        boolean started = false;
        try {
            Thread thread = factory.newThread(() -> run(task));
            if (thread == null) {
                throw new IllegalStateException("Thread factory " + factory + " returned no thread");
            }
            thread.start();
            started = true;
        } finally {
            if (!started) {
                ended();
            }
        }
    }

    private void run(ScheduledTask<?> task) {
        try {
            if (unstarted.remove(task)) { // else shutdownNow took it back first
                body.accept(task);
            }
        } finally {
            ended();
        }
    }

    /**
     * Takes back every task handed over whose thread has not begun it, for shutdownNow to return:
     * those threads then end without running it. Called after the queue stopped handing tasks out.
     */
    List<ScheduledTask<?>> takeBackUnstarted() {
        List<ScheduledTask<?>> taken = new ArrayList<>();
        for (ScheduledTask<?> task : unstarted) {
            if (unstarted.remove(task)) {
                taken.add(task);
            }
        }
        return taken;
    }

    private void ended() {
        Semaphore permits = limit;
        if (permits != null) {
            permits.release();
        }
        if (running.decrementAndGet() == 0) {
            lastEnded.run();
        }
    }
}
