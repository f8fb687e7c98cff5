package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Any thread may offer, remove and read the figures; only the pool's workers take. The queue every
 * worker of one scheduler takes its tasks from, in due order, with the leader-follower protocol.
 * The lock is taken and let go only through QueueLock, which also holds the hand-over of tasks to
 * its holder; only this class and WaitingWorkers (the workers' side: take(), the leader, the
 * followers, the batch) call it. This class adds and removes tasks, shuts the queue down and
 * reads its figures; the structures it uses never touch the lock.
 */
public final class LeaderFollowerDelayQueue {

    /*
     * Design overview.
     *
     * 1. Due order (DueOrder): by due time, then first in, first out; a heap, and a coarse timing
     *    wheel in front of it for tasks due later (timeouts, mostly, often cancelled before due).
     *
     * 2. Leader-follower (WaitingWorkers), the protocol of DelayQueue (see the Javadoc of
     *    WaitingWorkers.leader), after Schmidt and Pyarali's Leader/Followers pattern. Of the
     *    workers in take(), at most one, the leader, sleeps with a timeout: until the head is due
     *    or the wheel must move. The others, the followers, sleep without one (sleep()). A leader
     *    that leaves with a task wakes one follower, the next leader (leave()); so no thread wakes
     *    up unless a task is due or the head changed. Workers park on the thread itself rather
     *    than on a Condition, so that every release of the lock goes through QueueLock.release(),
     *    and a wake-up targets one chosen thread.
     *
     * 3. Hand-over (HandoffStripes, WakePlan). A task that needs no attention before the sleeping
     *    leader's planned wake-up stays on its producer's stripe until the leader drains the
     *    stripes; any other is inserted at once, by its producer if the lock is free, else by the
     *    holder on request (QueueLock). Cancels likewise, or take the task out of its slot with a
     *    CAS.
     *
     * 4. A task inserted ahead of the leader's wake-up time unparks the leader (or, with no leader
     *    and an empty queue, one follower) to re-plan. Any other task wakes nobody.
     *
     * 5. Batches (ReadyBatch). A worker that finds the head due takes up to 32 due tasks at once,
     *    for workers to claim with a CAS, and wakes followers to help: one lock per batch.
     *
     * 6. Shutdown closes the stripes (QueueLock.close()); take() returns null once the queue is
     *    then empty.
     *
     * Lock order: the pool's mainLock first, then this lock, never the other way round. Nothing
     * done under this lock takes mainLock, runs a task's code, or calls a listener.
     */

    /** The lock, the requests left for its holder, the staging of tasks; whether it is closed. */
    private final QueueLock lock;

    private final Ticker ticker;

    /** The queued tasks: heap, wheel and run. Guarded by lock. */
    private final DueOrder order;

    /** Where producers and cancellers leave tasks and removals without the lock. */
    private final HandoffStripes stripes;

    /** The sleeping leader's wake-up time, published before it sleeps, withdrawn as it wakes. */
    private final WakePlan plan = new WakePlan();

    /** The workers in take(): the leader, the followers, and the batch they claim from. */
    private final WaitingWorkers waiting;

    /** Figures for meters, read without the lock; written at each take and release of it. */
    private final QueueFigures figures = new QueueFigures();

    /** The current batch, for the figures' readers. Made once, not per reading. */
    private final Supplier<@Nullable ReadyBatch> readyBatch;

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this(ticker, timedWaits, new HandoffStripes(), new DueOrder(ticker.read()));
    }

    /** For tests that watch the stripes and the order the queue works on. */
    LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits, HandoffStripes stripes, DueOrder order) {
        this.ticker = ticker;
        this.stripes = stripes;
        this.order = order;
        // What the stripes' tasks and removals go to as they are drained: made once, not per drain.
        this.lock = new QueueLock(stripes, plan, figures, order, this::insert, this::removeLocked);
        this.waiting = new WaitingWorkers(this, lock, order, plan, ticker, timedWaits);
        this.readyBatch = waiting::readyBatch; // a volatile read
    }

    // ---- Producers ----

    /**
     * Adds a new task; false if the queue no longer accepts tasks. Never blocks on the lock, and
     * mostly does not touch it: only a task that needs a worker's attention before the leader
     * wakes anyway is moved into the queue at once.
     */
    public boolean offer(ScheduledTask<?> task) {
        long attention = order.attentionTime(task.time); // its due time, or its bucket's move time
        if (plan.mustDrainNow(attention) && lock.tryAcquire()) {
            // Needs attention before the plan ends, and the lock is free: insert it directly. The
            // stripes' tasks need none before the plan ends, so they are due after this one; with
            // no plan they go first, for equal due times keep submission order.
            try {
                if (lock.drainRequested() || !plan.inForce()) { // volatile reads
                    lock.drainPending();
                }
                if (lock.isClosed()) { // volatile read
                    return false;
                }
                insert(task);
                return true;
            } finally {
                lock.release();
            }
        }
        return lock.stage(task, attention);
    }

    /**
     * Puts a repeating task back for its next execution; false if it was not accepted, which it
     * is after shutdown only with {@code acceptAfterShutdown}, and never after stop.
     */
    boolean requeue(ScheduledTask<?> task, boolean acceptAfterShutdown) {
        lock.acquire();
        try {
            lock.drainPending();
            if (waiting.isStopped() || (lock.isClosed() && !acceptAfterShutdown)) {
                return false;
            }
            if (task.isNew()) { // a cancel that came before this lock was taken removed nothing
                insert(task);
            }
            return true;
        } finally {
            lock.release();
        }
    }

    /**
     * Removes a cancelled task from wherever it is queued. Never blocks: when the lock is busy, the
     * removal is left on the caller's stripe, and a request for the holder.
     */
    public void remove(ScheduledTask<?> task) {
        int p = task.queuePosition; // plain, racy read: confirmed by the CAS in unstage or cancel
        if (QueuePosition.isStaged(p) && stripes.unstage(task, QueuePosition.stagedPosition(p))) {
            return; // the position is read once: a drain may change it at any moment
        }
        if (QueuePosition.inBatch(p) && waiting.unbatch(task, p)) {
            return;
        }
        if (lock.tryAcquire()) {
            try {
                // Exact under the lock, where no drain is under way.
                if (!removeLocked(task) && QueuePosition.isStaged(task.queuePosition)) {
                    lock.drainPending(); // on another thread's stripe: dropped as it is drained
                }
            } finally {
                lock.release();
            }
            return;
        }
        stripes.pushRemoval(task); // the task is cancelled already: see pushRemoval
        lock.drainNow(true);
    }

    /** Removes a task from the batch or from due order; false if it is in neither. Under lock. */
    private boolean removeLocked(ScheduledTask<?> task) {
        int p = task.queuePosition;
        if (QueuePosition.inBatch(p)) {
            return waiting.unbatch(task, p); // nothing else to update: the batch is out of the queue
        }
        if (!order.remove(task)) {
            return false; // taken, never queued, or still on a stripe (dropped as it is drained)
        }
        waiting.wakeAllIfDone(); // the last task may be gone: idle workers may exit now
        return true;
    }

    /** Adds a task to due order and wakes whoever must re-plan. Under lock. */
    private void insert(ScheduledTask<?> task) {
        boolean wasEmpty = order.isEmpty();
        long attention = order.add(task); // its due time, or its wheel bucket's move time
        waiting.taskInserted(attention, wasEmpty);
    }

    // ---- Consumers ----

    /**
     * Waits for the next due task, following the leader-follower protocol (see WaitingWorkers),
     * and returns it; or null when the calling worker should exit: the queue was stopped, or it is
     * shut down and empty.
     */
    @Nullable
    ScheduledTask<?> take(PoolThread me) {
        return waiting.take(me);
    }

    /** Wakes the leader so that it re-reads the ticker: used when a manual ticker moved. */
    void timeAdvanced() {
        lock.acquire();
        try {
            waiting.timeAdvanced();
        } finally {
            lock.release();
        }
    }

    /** The queue's lock, for tests that drive it and its requests. */
    QueueLock lock() {
        return lock;
    }

    // ---- Shutdown ----

    /** Stops accepting tasks; removes and returns those that must not run after shutdown, to cancel. */
    List<ScheduledTask<?>> shutdown(boolean keepDelayed, boolean keepRepeating) {
        lock.acquire();
        try {
            lock.close();
            List<ScheduledTask<?>> removed = List.of();
            if (!keepDelayed || !keepRepeating) {
                long now = ticker.read();
                removed = order.removeIf(t -> t.isPeriodic() ? !keepRepeating : !keepDelayed && t.time - now > 0);
            }
            waiting.wakeAll();
            return removed;
        } finally {
            lock.release();
        }
    }

    /** Removes and returns every queued task due after a deadline, for the caller to cancel. */
    List<ScheduledTask<?>> removeDueAfter(long deadline) {
        lock.acquire();
        try {
            lock.drainPending();
            List<ScheduledTask<?>> removed = order.removeIf(t -> t.time - deadline > 0);
            waiting.wakeAllIfDone();
            return removed;
        } finally {
            lock.release();
        }
    }

    /**
     * Makes every take() from now on return null, without the lock and without removing a task:
     * the first step of shutdownNow, before {@link #stop()} collects what the queue holds.
     */
    void stopTaking() {
        waiting.stopTaking();
    }

    /** Stops the queue, so that takers return null from now on; returns what it held, in due order. */
    List<ScheduledTask<?>> stop() {
        lock.acquire();
        try {
            lock.close();
            List<ScheduledTask<?>> drained = new ArrayList<>(order.size());
            waiting.stop(drained); // the batch's tasks: due before anything else
            order.drainTo(drained);
            waiting.wakeAll();
            return drained;
        } finally {
            lock.release();
        }
    }

    // ---- Figures: without the lock, and exact ones under it ----

    /**
     * Returns the number of queued tasks, those being handed over included, without the lock and
     * without moving a task (see QueueFigures). A submitter sees its task counted at once, and a
     * canceller sees it gone.
     */
    public int size() {
        return figures.size(stripes, readyBatch);
    }

    /** Returns how long the most overdue task is past its due time, or 0; like {@link #size()}. */
    long overdueNanos() {
        return figures.overdueNanos(ticker.read(), readyBatch);
    }

    /**
     * Whether any task is queued or handed over, exactly: what the pool decides on when a worker
     * leaves or the pool would terminate. Takes the lock and moves the stripes into the queue.
     */
    boolean hasTasks() {
        lock.acquire();
        try {
            lock.drainPending();
            return !order.isEmpty() || waiting.hasBatchTasks();
        } finally {
            lock.release();
        }
    }

    /**
     * Whether a waiting task is due at the ticker's reading now, its due time included (where the
     * overdue figure reports 0). Exact, under the lock, after a drain and after moving the wheel's
     * buckets due by now, as the next take() would do first; for a manual ticker's wait for what
     * came due, not for gauges.
     */
    boolean hasDueTask() {
        lock.acquire();
        try {
            lock.drainPending();
            long now = ticker.read();
            order.advance(now);
            if (waiting.hasBatchTasks()) {
                return true; // unclaimed tasks of a batch were due when it was taken
            }
            ScheduledTask<?> first = order.first();
            return first != null && first.time - now <= 0;
        } finally {
            lock.release();
        }
    }

    /** Returns the thread currently designated leader; for tests. */
    public @Nullable Thread leader() {
        lock.acquire();
        try {
            return waiting.leaderThread();
        } finally {
            lock.release();
        }
    }

    @Override
    public String toString() {
        return "LeaderFollowerDelayQueue[size = " + size() + "]";
    }
}
