package io.timedjobs.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: any thread may wait on it or complete it. The future half of a {@code
 * ScheduledTask}, its base class: the state, and the threads blocked in {@code get}, kept as a
 * Treiber stack in {@link #ownerOrWaiters} (the stack ends in the task's owner, so the task needs
 * no field of its own for it); and the short wait of a worker for the {@code cancel(true)} that
 * interrupts it. It knows nothing of the task it is part of: the task calls it, never the reverse.
 *
 * <p>A base class rather than an object per task: the task stays 40 bytes, and each call is a
 * direct, inlinable one.
 */
abstract class TaskFuture {

    // The states: see ScheduledTask's life cycle.
    static final int NEW = 0;
    static final int COMPLETING = 1;
    static final int NORMAL = 2;
    static final int EXCEPTIONAL = 3;
    static final int CANCELLED = 4;
    static final int INTERRUPTING = 5;
    static final int INTERRUPTED = 6;
    static final int RUNNING = 8;

    /** Longest park of {@link #awaitInterrupt} before it looks at the state again. */
    private static final long INTERRUPT_WAIT_NANOS = 1_000_000L;

    /** One of the states above; changed through {@link #STATE} only. */
    volatile int state;

    /**
     * The task's owner; or, while threads are blocked in {@code get}, a Treiber stack of {@link
     * WaitNode}s whose last node's {@code next} is the owner. Null only for a task without owner
     * (the stripes' marker, the model tests' tasks). Changed only here once the task is made.
     */
    volatile @Nullable Object ownerOrWaiters;

    TaskFuture(@Nullable Object owner) {
        this.ownerOrWaiters = owner;
    }

    /** Returns the owner at the end of the waiters' stack. */
    final @Nullable Object owner() {
        return ownerBelow(ownerOrWaiters); // volatile read
    }

    /** Returns the owner at the end of the waiters' stack that starts at {@code head}. */
    private static @Nullable Object ownerBelow(@Nullable Object head) {
        Object o = head;
        while (o instanceof WaitNode node) {
            o = node.next;
        }
        return o;
    }

    /**
     * Blocks until the task is done, the time is up or the thread is interrupted.
     *
     * @return the state seen last: done, or still pending if the time ran out
     */
    final int awaitDone(boolean timed, long nanos) throws InterruptedException {
        final long deadline = timed ? System.nanoTime() + nanos : 0L;
        WaitNode node = null;
        boolean queued = false;
        for (; ; ) {
            int s = state; // volatile read
            if (s > COMPLETING && s != RUNNING) {
                if (node != null) {
                    node.thread = null;
                }
                return s;
            } else if (s == COMPLETING) {
                Thread.yield(); // the outcome is being written this very moment
            } else if (Thread.interrupted()) {
                removeWaiter(node);
                throw new InterruptedException();
            } else if (node == null) {
                if (timed && nanos <= 0L) {
                    return s;
                }
                node = new WaitNode();
            } else if (!queued) {
                Object head = ownerOrWaiters; // volatile read
                node.next = head;
                queued = WAITERS.weakCompareAndSet(this, head, node); // CAS: publishes node.next
            } else if (timed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0L) {
                    removeWaiter(node);
                    return state;
                }
                LockSupport.parkNanos(this, remaining);
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** Unlinks a waiter that timed out or was interrupted, and any other dead node on the way. */
    private void removeWaiter(@Nullable WaitNode node) {
        if (node == null) {
            return;
        }
        node.thread = null;
        restart:
        for (; ; ) {
            WaitNode pred = null;
            for (Object o = ownerOrWaiters; o instanceof WaitNode q; ) {
                Object next = q.next;
                if (q.thread != null) {
                    pred = q;
                } else if (pred != null) {
                    pred.next = next;
                    if (pred.thread == null) {
                        continue restart; // pred died meanwhile: its own unlinking may be lost
                    }
                } else if (!WAITERS.compareAndSet(this, q, next)) {
                    continue restart;
                }
                o = next;
            }
            return;
        }
    }

    /** Empties the waiters' stack, leaving the owner in its place, and wakes every waiter. */
    final void finishCompletion() {
        // Mostly nobody waits: this stays a field read and a type check, small enough to inline.
        if (ownerOrWaiters instanceof WaitNode) { // volatile read
            wakeWaiters();
        }
    }

    /** The rest of {@link #finishCompletion}, when threads wait; out of line. */
    private void wakeWaiters() {
        for (Object o; (o = ownerOrWaiters) instanceof WaitNode first; ) {
            Object owner = ownerBelow(first.next);
            if (WAITERS.weakCompareAndSet(this, first, owner)) {
                // The nodes keep their links: a concurrent owner() may still be walking them.
                for (Object q = first; q instanceof WaitNode node; q = node.next) {
                    Thread t = node.thread;
                    if (t != null) {
                        node.thread = null;
                        LockSupport.unpark(t);
                    }
                }
                break;
            }
        }
    }

    /**
     * Waits while a cancel(true) interrupts this thread: a short spin, for the canceller is a few
     * instructions away from done; then parked, for it may have lost its processor. The canceller
     * unparks the thread it interrupted once the state is INTERRUPTED; the timeout only serves a
     * thread outside the pool that ran the task through run(), which no canceller knows of. The
     * interrupt is cleared while parked, or park would return at once, and restored after.
     */
    final void awaitInterrupt() {
        boolean interrupted = false;
        for (int spins = 0; state == INTERRUPTING; spins++) {
            if (spins < 64) {
                Thread.onSpinWait();
            } else {
                interrupted |= Thread.interrupted();
                LockSupport.parkNanos(this, INTERRUPT_WAIT_NANOS);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A thread blocked in get; next is the node below it, or the owner at the bottom. */
    static final class WaitNode {
        volatile @Nullable Thread thread = Thread.currentThread();
        volatile @Nullable Object next;
    }

    /** The state's atomic operations, for the task's transitions too. */
    static final VarHandle STATE;

    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(TaskFuture.class, "state", int.class);
            WAITERS = lookup.findVarHandle(TaskFuture.class, "ownerOrWaiters", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
