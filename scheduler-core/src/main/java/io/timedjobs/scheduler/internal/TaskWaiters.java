package io.timedjobs.scheduler.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Called by {@link ScheduledTask} only, on any thread: the threads blocked in a task's {@code get},
 * kept as a Treiber stack in the task's {@code poolOrWaiters} field (the stack ends in the pool, so
 * the task needs no field of its own for it), and the short wait of a worker for the {@code
 * cancel(true)} that interrupts it.
 *
 * <p>Static methods on the task rather than an object per task: the task stays 40 bytes, and each
 * call is a direct, inlinable one.
 */
final class TaskWaiters {

    /** Longest park of {@link #awaitInterrupt} before it looks at the state again. */
    private static final long INTERRUPT_WAIT_NANOS = 1_000_000L;

    private TaskWaiters() {}

    /** Returns the pool at the end of the waiters' stack that starts at {@code head}. */
    static @Nullable Object poolBelow(@Nullable Object head) {
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
    static int awaitDone(ScheduledTask<?> task, boolean timed, long nanos) throws InterruptedException {
        final long deadline = timed ? System.nanoTime() + nanos : 0L;
        WaitNode node = null;
        boolean queued = false;
        for (; ; ) {
            int s = task.state();
            if (s > ScheduledTask.COMPLETING && s != ScheduledTask.RUNNING) {
                if (node != null) {
                    node.thread = null;
                }
                return s;
            } else if (s == ScheduledTask.COMPLETING) {
                Thread.yield(); // the outcome is being written this very moment
            } else if (Thread.interrupted()) {
                removeWaiter(task, node);
                throw new InterruptedException();
            } else if (node == null) {
                if (timed && nanos <= 0L) {
                    return s;
                }
                node = new WaitNode();
            } else if (!queued) {
                Object head = task.poolOrWaiters; // volatile read
                node.next = head;
                queued = WAITERS.weakCompareAndSet(task, head, node); // CAS: publishes node.next
            } else if (timed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0L) {
                    removeWaiter(task, node);
                    return task.state();
                }
                LockSupport.parkNanos(task, remaining);
            } else {
                LockSupport.park(task);
            }
        }
    }

    /** Unlinks a waiter that timed out or was interrupted, and any other dead node on the way. */
    private static void removeWaiter(ScheduledTask<?> task, @Nullable WaitNode node) {
        if (node == null) {
            return;
        }
        node.thread = null;
        restart:
        for (; ; ) {
            WaitNode pred = null;
            for (Object o = task.poolOrWaiters; o instanceof WaitNode q; ) {
                Object next = q.next;
                if (q.thread != null) {
                    pred = q;
                } else if (pred != null) {
                    pred.next = next;
                    if (pred.thread == null) {
                        continue restart; // pred died meanwhile: its own unlinking may be lost
                    }
                } else if (!WAITERS.compareAndSet(task, q, next)) {
                    continue restart;
                }
                o = next;
            }
            return;
        }
    }

    /** Empties the waiters' stack, leaving the pool in its place, and wakes every waiter. */
    static void finishCompletion(ScheduledTask<?> task) {
        for (Object o; (o = task.poolOrWaiters) instanceof WaitNode first; ) {
            Object pool = poolBelow(first.next);
            if (WAITERS.weakCompareAndSet(task, first, pool)) {
                // The nodes keep their links: a concurrent pool() may still be walking them.
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
    static void awaitInterrupt(ScheduledTask<?> task) {
        boolean interrupted = false;
        for (int spins = 0; task.state() == ScheduledTask.INTERRUPTING; spins++) {
            if (spins < 64) {
                Thread.onSpinWait();
            } else {
                interrupted |= Thread.interrupted();
                LockSupport.parkNanos(task, INTERRUPT_WAIT_NANOS);
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** A thread blocked in get; next is the node below it, or the pool at the bottom. */
    static final class WaitNode {
        volatile @Nullable Thread thread = Thread.currentThread();
        volatile @Nullable Object next;
    }

    private static final VarHandle WAITERS;

    static {
        try {
            WAITERS = MethodHandles.lookup().findVarHandle(ScheduledTask.class, "poolOrWaiters", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
