package io.timedjobs.scheduler.internal;

import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Any thread may try it, stage a task or leave a request; only LeaderFollowerDelayQueue and
 * WaitingWorkers block on it, and it is taken and let go here alone ({@link #acquire}, {@link
 * #tryAcquire}, {@link #release}). The queue's lock, and the hand-over of tasks to its holder: a
 * producer stages its task on its stripe, and one whose task must not wait but finds the lock held
 * leaves a request and returns; the holder performs it when it lets go ({@link #release}), which
 * also publishes the figures for meters. What the holder does with the tasks and removals it
 * drains (inserting, waking workers) is the queue's, handed in as two callbacks; this class knows
 * nothing of the leader or the followers. Lock order: see the queue's design overview.
 *
 * <p><b>NOTE:</b> it holds its ReentrantLock rather than extending it, so that no inherited
 * {@code lock()} or {@code unlock()} can skip the figures and the requests.
 */
final class QueueLock {

    /**
     * Depths of a stripe at which its producer wakes the leader to move the pile: deep enough that
     * timeouts cancelled soon are mostly cancelled on the stripe, shallow enough that one drain
     * holds the lock for a millisecond or two at most.
     */
    private static final int NUDGE_DEPTH = 1 << 14;

    /**
     * Guards the queue's due order, leader and followers. Taken only through {@link #acquire} and
     * {@link #tryAcquire}, and let go only through {@link #release}: those keep the figures and
     * perform the requests. No spinning: with more workers than cores, a spinner mostly burns the
     * time slice the holder needs.
     */
    private final ReentrantLock lock = new ReentrantLock();

    /** Where producers and cancellers leave tasks and removals without the lock. */
    private final HandoffStripes stripes;

    /** The sleeping leader's plan, read to decide whether a staged task may wait. */
    private final WakePlan plan;

    /** Figures for meters: marked moving at each take of the lock, published at each release. */
    private final QueueFigures figures;

    /** The queued tasks, whose figures each release publishes. Guarded by lock. */
    private final DueOrder order;

    /** What the stripes' tasks go to as they are drained (the queue's insert). Made once. */
    private final Consumer<ScheduledTask<?>> insert;

    /** What the stripes' removals go to as they are drained (the queue's removeLocked). Made once. */
    private final Predicate<ScheduledTask<?>> removeLocked;

    /**
     * Requests for the lock's holder, which performs them before it lets go for good: a drain, set
     * by a producer or canceller that pushed something which must not wait but found the lock held;
     * or only the removals, set by a canceller that left one on its stripe. Volatile: set before the
     * requester tries the lock again, read by the holder after it let go (see drainNow).
     */
    private volatile boolean drainRequested;

    private volatile boolean removalsRequested;

    /** Whether the queue was shut down or stopped (see close). Written under lock, never cleared. */
    private volatile boolean closed;

    QueueLock(
            HandoffStripes stripes,
            WakePlan plan,
            QueueFigures figures,
            DueOrder order,
            Consumer<ScheduledTask<?>> insert,
            Predicate<ScheduledTask<?>> removeLocked) {
        this.stripes = stripes;
        this.plan = plan;
        this.figures = figures;
        this.order = order;
        this.insert = insert;
        this.removeLocked = removeLocked;
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

    /** Takes the lock, and marks the figures as moving. */
    void acquire() {
        lock.lock();
        figures.moving();
    }

    /**
     * Takes the lock if it is free, without waiting. Reading the lock's state (a volatile read)
     * before trying it (a CAS) spares a failing CAS on the lock's cache line, which two producers
     * would otherwise pass back and forth.
     */
    boolean tryAcquire() {
        if (lock.isLocked() || !lock.tryLock()) {
            return false;
        }
        figures.moving();
        return true;
    }

    /**
     * Publishes the figures and releases the lock, then takes it back if a producer or a canceller
     * asked for a drain while it was held (that thread found the lock busy, so it counts on the
     * holder).
     */
    void release() {
        for (; ; ) {
            figures.publish(order);
            lock.unlock(); // release store of the lock's state
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

    /** Brings the queue up to date with what producers and cancellers handed over. Under lock. */
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
        stripes.drainRemovals(removeLocked);
    }

    /**
     * Performs the removals cancellers left, and drains the stripes only if one of the tasks is
     * still on one: moving the stripes' live tasks into the queue here would only send their own
     * cancels, soon after, to the lock. Under lock.
     */
    private void drainRemovals() {
        if (removalsRequested) { // volatile read
            removalsRequested = false; // volatile write, before the removals are read
        }
        if (stripes.drainRemovals(removeLocked)) { // one of the tasks is still on a stripe
            drainPending();
        }
    }

    /**
     * Marks the queue closed, closes every stripe and moves what was on them into the queue. Under
     * lock. A task whose slot was claimed before its stripe's CLOSED marker was accepted; a
     * producer that finds the marker rejects its task: so accepting and shutting down are atomic to
     * each other, lock-free.
     */
    void close() {
        closed = true; // volatile write
        stripes.close(insert);
        drainPending();
    }

    /** Whether {@link #close} has run: the queue no longer accepts new tasks. A volatile read. */
    boolean isClosed() {
        return closed; // volatile read
    }

    /** Whether a drain was asked for and not yet done; a volatile read. */
    boolean drainRequested() {
        return drainRequested; // volatile read
    }

    /** Whether the lock is held; for tests. */
    boolean isLocked() {
        return lock.isLocked();
    }
}
