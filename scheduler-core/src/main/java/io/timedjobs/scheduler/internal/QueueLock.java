package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Any thread may try it, stage a task or leave a request; only workers, shutdown and the pool's
 * exact queries block on it. The queue's lock, and the hand-over of tasks to its holder: a
 * producer stages its task on its stripe, and one that needs the stripes drained but finds the
 * lock held leaves a request and returns; the holder performs it when it lets go. Every release
 * goes through {@link #release()}, which publishes the figures for meters and looks for requests
 * after letting go.
 *
 * <p>Lock order: the pool's mainLock first, then this one, never the other way round. Nothing
 * done under this lock takes mainLock, runs a task's code, or calls a listener.
 *
 * <p><b>NOTE:</b> it extends ReentrantLock rather than holding one, so that the queue reaches the
 * lock and the requests with one field load, as before the lock had a class of its own. Only the
 * methods declared here are used: the inherited {@code lock()}, {@code tryLock()} and {@code
 * unlock()} would skip the figures and the requests.
 */
final class QueueLock extends ReentrantLock {

    /**
     * Depths of a stripe at which its producer wakes the leader to move the pile: deep enough that
     * timeouts cancelled soon are mostly cancelled on the stripe, shallow enough that one drain
     * holds the lock for a millisecond or two at most.
     */
    private static final int NUDGE_DEPTH = 1 << 14;

    private final HandoffStripes stripes;

    private final WakePlan plan;

    private final QueueFigures figures;

    private final DueOrder order;

    /** Where the stripes' live tasks go as they are drained. Made once, not per drain. */
    private final Consumer<ScheduledTask<?>> insert;

    /** What the stripes' removals do as they are drained. Made once, not per drain. */
    private final Predicate<ScheduledTask<?>> remove;

    /**
     * Set by a producer or canceller that pushed something which must not wait but found the lock
     * held: the holder drains before it lets go for good. Volatile: set before the requester tries
     * the lock again, read by the holder after it let go, so one of the two sees the other.
     */
    private volatile boolean drainRequested;

    /**
     * Set by a canceller that left a removal on its stripe because the lock was held: the holder
     * performs the removals before it lets go for good, without draining the stripes' tasks.
     * Volatile, like drainRequested.
     */
    private volatile boolean removalsRequested;

    QueueLock(
            HandoffStripes stripes,
            WakePlan plan,
            QueueFigures figures,
            DueOrder order,
            Consumer<ScheduledTask<?>> insert,
            Predicate<ScheduledTask<?>> remove) {
        this.stripes = stripes;
        this.plan = plan;
        this.figures = figures;
        this.order = order;
        this.insert = insert;
        this.remove = remove;
    }

    /**
     * Puts a task on the calling thread's stripe, and has it moved into the queue now unless the
     * leader's plan lets it wait (see WakePlan). Any thread not holding the lock.
     *
     * @param attention when the task needs a worker's attention: its due time or its bucket's move
     * @return false if the stripes are closed: the queue no longer accepts tasks
     */
    boolean stage(ScheduledTask<?> task, long attention) {
        int depth = stripes.stage(task);
        if (depth == 0) {
            return false;
        }
        // The push comes first and the look at the plan second: see WakePlan.
        if (plan.mustDrainNow(attention)) {
            drainNow(false);
        } else if (depth % NUDGE_DEPTH == 0) {
            Thread leaderThread = plan.leaderThread();
            if (leaderThread != null) {
                LockSupport.unpark(leaderThread); // let the leader move the pile into the queue
            }
        }
        return true;
    }

    /**
     * Takes the lock. No spinning: with more workers than cores, a spinner mostly burns the time
     * slice the lock holder needs.
     */
    void acquire() {
        lock();
        figures.moving();
    }

    /**
     * Takes the lock if it is free, without waiting. Reading the lock's state (a volatile read)
     * before trying it (a CAS) spares a failing CAS on the lock's cache line, which two producers
     * would otherwise pass back and forth.
     */
    boolean tryAcquire() {
        if (isLocked() || !tryLock()) {
            return false;
        }
        figures.moving();
        return true;
    }

    /**
     * Releases the lock, then takes it back if a producer or a canceller asked for a drain while it
     * was held (that thread found the lock busy, so it counts on the holder).
     */
    void release() {
        for (; ; ) {
            figures.publish(order);
            unlock(); // release store of the lock's state
            boolean drain = drainRequested; // volatile read, after the release: see drainNow
            if (!(drain || removalsRequested) || !tryAcquire()) { // volatile read
                return;
            }
            if (drain) {
                drainPending();
            } else {
                drainRemovals();
            }
        }
    }

    /**
     * Removes a cancelled task under the lock if it is free, else leaves the removal on the
     * caller's stripe for the holder. Any thread not holding the lock.
     */
    void remove(ScheduledTask<?> task) {
        if (tryAcquire()) {
            try {
                // Exact under the lock, where no drain is under way.
                if (!remove.test(task) && QueuePosition.isStaged(task.queuePosition)) {
                    drainPending(); // on another thread's stripe: dropped as it is drained
                }
            } finally {
                release();
            }
            return;
        }
        stripes.pushRemoval(task);
        drainNow(true);
    }

    /**
     * Whether any task is queued or handed over, exactly: what the pool decides on when a worker
     * leaves or the pool would terminate. Takes the lock and moves the stripes into the queue.
     */
    boolean hasTasks(Supplier<@Nullable ReadyBatch> batch) {
        acquire();
        try {
            drainPending();
            ReadyBatch b = batch.get(); // volatile read
            return !order.isEmpty() || (b != null && b.remaining() > 0);
        } finally {
            release();
        }
    }

    /**
     * Whether a waiting task is due at the ticker's reading now, its due time included (where the
     * overdue figure reports 0). Exact, under the lock, after a drain; for a manual ticker's wait
     * for what came due, not for gauges.
     */
    boolean hasDueTask(Ticker ticker, Supplier<@Nullable ReadyBatch> batch) {
        acquire();
        try {
            drainPending();
            long now = ticker.read();
            order.advance(now);
            ReadyBatch b = batch.get(); // volatile read
            if (b != null && b.remaining() > 0) {
                return true; // unclaimed tasks of a batch were due when it was taken
            }
            ScheduledTask<?> first = order.first();
            return first != null && first.time - now <= 0;
        } finally {
            release();
        }
    }

    /** Whether a drain was asked for and not yet done; a volatile read. Any thread. */
    boolean drainRequested() {
        return drainRequested; // volatile read
    }

    /**
     * Has what the stripes hold moved into the queue now (or, with {@code removalsOnly}, only the
     * removals performed): here when the lock is free, else by its holder, which sees the request
     * when it lets go. Any thread not holding the lock.
     */
    void drainNow(boolean removalsOnly) {
        if (tryDrain(removalsOnly)) {
            return;
        }
        if (removalsOnly) {
            removalsRequested = true; // volatile write
        } else {
            drainRequested = true; // volatile write
        }
        // Written, then read: either this thread sees the lock free, or the holder, whose release
        // comes after this read, sees the request (release() reads it after letting go).
        tryDrain(removalsOnly);
    }

    private boolean tryDrain(boolean removalsOnly) {
        if (!tryAcquire()) {
            return false;
        }
        if (removalsOnly) {
            drainRemovals();
        } else {
            drainPending();
        }
        release();
        return true;
    }

    /** Brings the queue up to date with what producers and cancellers handed over. Under the lock. */
    void drainPending() {
        // Cleared before the stripes are read, so that a later request is seen by release();
        // written only when set, for this runs on every take().
        if (drainRequested) { // volatile read
            drainRequested = false; // volatile write
        }
        if (removalsRequested) { // volatile read
            removalsRequested = false; // volatile write
        }
        stripes.drainTasks(insert); // first: a task staged and then cancelled is dropped here
        stripes.drainRemovals(remove);
    }

    /**
     * Performs the removals cancellers left, and drains the stripes only if one of the tasks is
     * still on one: moving the stripes' live tasks into the queue here would only send their own
     * cancels, soon after, to the lock. Under the lock.
     */
    void drainRemovals() {
        if (removalsRequested) { // volatile read
            removalsRequested = false; // volatile write, before the removals are read
        }
        if (stripes.drainRemovals(remove)) { // one of the tasks is still on a stripe
            drainPending();
        }
    }
}
