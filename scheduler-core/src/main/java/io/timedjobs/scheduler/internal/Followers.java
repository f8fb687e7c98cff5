package io.timedjobs.scheduler.internal;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: touched only under the queue's lock, which {@link #sleep} lets go and takes
 * back. The workers sleeping in take() without a timeout, most recent last, and how a worker
 * sleeps; the leader sleeps here too, but is not registered. Each registered worker's {@link
 * PoolThread#queued} is set, and a waker clears it (a volatile write) before it unparks the worker, so
 * a worker that wakes up still registered had a spurious wake-up and deregisters itself. Wakers
 * take the most recent sleeper first.
 */
final class Followers {

    private final QueueLock lock;

    /** The queue's current batch, which a worker woken as a helper claims from. */
    private final Supplier<@Nullable ReadyBatch> batch;

    /** What sleepers park on, as thread dumps show it: the queue. */
    private final Object blocker;

    private @Nullable PoolThread[] sleepers = new PoolThread[8];

    private int count;

    Followers(QueueLock lock, Supplier<@Nullable ReadyBatch> batch, Object blocker) {
        this.lock = lock;
        this.batch = batch;
        this.blocker = blocker;
    }

    /**
     * Releases the lock, parks, and takes the lock back. A follower registers itself first; a
     * leader does not (the queue's leader field names it). A follower woken as a helper claims a
     * task from the batch without taking the lock back; one woken as the leader's successor never
     * does (see the queue's leader field). An interrupt is put aside: see PoolThread.interrupted.
     *
     * @param nanos how long to sleep at most; 0 for no limit
     * @return a task claimed from a batch, with the lock not held; or null, with the lock held
     */
    @Nullable
    ScheduledTask<?> sleep(PoolThread me, boolean follower, long nanos) {
        if (follower && !me.queued) { // volatile read
            add(me);
        }
        if (Thread.interrupted()) {
            me.interrupted = true;
        }
        lock.release();
        if (nanos > 0L) {
            LockSupport.parkNanos(blocker, nanos);
        } else {
            LockSupport.park(blocker);
        }
        // queued: a volatile read, after which helper (plain) is as the waker wrote it.
        if (follower && !me.queued && me.helper) {
            ReadyBatch b = batch.get(); // volatile read
            ScheduledTask<?> claimed = b == null ? null : b.claim();
            if (claimed != null) {
                return claimed;
            }
        }
        lock.acquire();
        if (me.queued) { // woken by something other than a waker: deregister, look again
            remove(me);
        }
        return null;
    }

    /** Registers a worker about to sleep as a follower, not (yet) asked to help with a batch. */
    void add(PoolThread w) {
        if (count == sleepers.length) {
            sleepers = Arrays.copyOf(sleepers, count * 2);
        }
        w.helper = false; // plain write, published by the volatile write below
        sleepers[count++] = w;
        w.queued = true; // volatile write
    }

    /** Deregisters a worker that woke up still registered. */
    void remove(PoolThread w) {
        for (int i = count - 1; i >= 0; i--) {
            if (sleepers[i] == w) {
                System.arraycopy(sleepers, i + 1, sleepers, i, count - i - 1);
                sleepers[--count] = null;
                break;
            }
        }
        w.queued = false; // volatile write
    }

    /**
     * Deregisters the most recent sleeper, for the caller to unpark (after releasing the lock, for
     * one that must take the lock right away); null when none sleeps.
     */
    @Nullable
    PoolThread pollLast() {
        if (count == 0) {
            return null;
        }
        PoolThread w = sleepers[--count];
        sleepers[count] = null;
        w.queued = false; // volatile write: the worker sees itself woken by a waker
        return w;
    }

    /**
     * Lets go of the lock for a worker leaving take(). Helpers for a new batch are woken first:
     * they claim without the lock. The successor to a vacant leader role, if {@code successor} is
     * asked for, is unparked after the lock is released: woken before, it would only block on the
     * lock and need a second wake-up.
     */
    void leave(boolean successor, int helpers) {
        PoolThread next = successor ? pollLast() : null;
        wakeHelpers(helpers);
        lock.release();
        if (next != null) {
            LockSupport.unpark(next.thread);
        }
    }

    /** Wakes the most recent sleeper, if any. */
    void wakeLast() {
        PoolThread w = pollLast();
        if (w != null) {
            LockSupport.unpark(w.thread);
        }
    }

    /**
     * Wakes up to {@code n} sleepers to claim tasks from the current batch without the lock, which
     * is why they may be woken while it is still held.
     */
    void wakeHelpers(int n) {
        for (; n > 0 && count > 0; n--) {
            PoolThread w = sleepers[--count];
            sleepers[count] = null;
            w.helper = true; // plain write, before queued is cleared: published by that volatile write
            w.queued = false; // volatile write
            LockSupport.unpark(w.thread);
        }
    }

    /** Wakes every sleeper. */
    void wakeAll() {
        for (PoolThread w; (w = pollLast()) != null; ) {
            LockSupport.unpark(w.thread);
        }
    }

    /** Returns the number of sleepers. */
    int size() {
        return count;
    }
}
