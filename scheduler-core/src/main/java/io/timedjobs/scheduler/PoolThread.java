package io.timedjobs.scheduler;

import org.jspecify.annotations.Nullable;

/**
 * Written by its own thread and under the queue's lock, as each field says. One thread of the pool:
 * a worker, as the queue sees it when it parks and unparks it in take(), or a thread that runs one
 * task of its own (ThreadPerTask); for both, the task it runs, so that a cancel(true) finds the
 * thread to interrupt.
 */
final class PoolThread {
    final Thread thread;

    /**
     * Whether it is registered in the queue's followers. Written under the queue's lock; volatile
     * because a follower reads it right after waking, before it takes the lock back.
     */
    volatile boolean queued;

    /**
     * Whether it was woken to help with a batch, rather than to lead or to look again. Written
     * under the queue's lock before {@link #queued} is cleared, read after the follower saw it
     * cleared.
     */
    boolean helper;

    /**
     * Whether an interrupt was cleared before it slept in take(), to be restored when take()
     * returns; only its own thread touches this. Workers are stopped through the queue's state,
     * so an interrupt there is a late cancel(true) aimed at a task the thread ran before, and it
     * must not make park() return at once in a loop.
     */
    boolean interrupted;

    /**
     * The task the worker runs, or null; written by the worker, read without a lock by a
     * cancel(true) once it has seen the task RUNNING (the task's state publishes it).
     */
    @Nullable
    ScheduledTask<?> running;

    PoolThread(Thread thread) {
        this.thread = thread;
    }
}
