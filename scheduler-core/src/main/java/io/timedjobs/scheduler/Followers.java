package io.timedjobs.scheduler;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: touched only under the queue's lock, which it never takes or lets go itself. The
 * workers sleeping in take() without a timeout, most recent last; the leader sleeps too, but is not
 * registered. Each registered worker's {@link PoolThread#queued} is set, and a waker clears it (a
 * volatile write) before it unparks the worker, so a worker that wakes up still registered had a
 * spurious wake-up and deregisters itself. Wakers take the most recent sleeper first.
 */
final class Followers {

    private @Nullable PoolThread[] sleepers = new PoolThread[8];

    private int count;

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
