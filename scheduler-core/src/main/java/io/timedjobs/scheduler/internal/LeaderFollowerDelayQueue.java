package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Any thread may offer, remove and read the figures; only the pool's workers take. The queue every
 * worker of one scheduler takes its tasks from, in due order, with the leader-follower protocol.
 *
 * <p>The tasks in due order, the leader and the followers are guarded by one lock; producers hand
 * new tasks over on lock-free stripes and usually do not touch the lock.
 */
public final class LeaderFollowerDelayQueue {

    /*
     * Design overview.
     *
     * 1. Due order (DueOrder): by due time, then by the order tasks entered, so equal times run
     *    first in, first out; a heap, with a coarse timing wheel in front of it for tasks due later
     *    (timeouts, mostly, often cancelled before they come due).
     *
     * 2. Leader-follower. Any number of workers call take(). At most one of them, the leader, sleeps
     *    with a timeout: until the head is due or the wheel must move. The others, the followers,
     *    sleep without one and cost nothing. When the leader leaves with a task, it wakes one
     *    follower, the next leader; so there is at most one timed sleeper, and no thread wakes up
     *    unless a task is due or the head changed. This is the protocol of DelayQueue (see the
     *    Javadoc of its leader field), after Schmidt and Pyarali's Leader/Followers pattern.
     *    Workers park on their own Waiter rather than on a Condition, so that every release of the
     *    lock goes through QueueLock.release(), and a wake-up targets exactly one chosen thread.
     *
     * 3. Hand-over (HandoffStripes, WakePlan, QueueLock). A producer puts its task on its stripe
     *    without the lock. While the sleeping leader's plan is in force, a task that needs no
     *    attention before the plan's wake-up time stays there, and the leader moves every stripe
     *    into the queue when it wakes. A task needed sooner is inserted at once: directly when the
     *    lock is free, else by the holder, on request. A deep stripe wakes the leader.
     *
     * 4. Cancellation. A task on the canceller's stripe, or in a batch, leaves its slot with a CAS;
     *    any other is removed under the lock, or, the lock being busy, by the holder on request.
     *    Either way nothing keeps the task once cancel() has returned.
     *
     * 5. New heads. A task inserted ahead of the leader's wake-up time unparks the leader (or, with
     *    no leader and an empty queue, one follower) to re-plan. Any other task wakes nobody.
     *
     * 6. Batches (ReadyBatch). A worker that finds the head due takes up to 32 due tasks at once
     *    into a batch that workers claim from with a CAS, and wakes followers to help; so a burst
     *    of due tasks costs one lock acquisition per batch.
     *
     * 7. Shutdown closes every stripe with a CLOSED marker and moves what was on it into the queue;
     *    a producer that finds the marker rejects its task, so accepting and shutting down are
     *    atomic to each other. take() returns null once the queue is shut down and empty.
     */

    /**
     * Guards the tasks in due order, the leader, the followers and {@link #leaderWakeAt}. Lock
     * order: the pool's mainLock first, then this one, never the other way round (see QueueLock).
     */
    private final QueueLock lock;

    private final Ticker ticker;

    /**
     * Whether the leader sleeps with a timeout. False for a manual ticker, whose time moves only
     * when it is advanced: then the leader sleeps until {@link #timeAdvanced()} wakes it.
     */
    private final boolean timedWaits;

    /** The queued tasks: heap, wheel and run. Guarded by lock. */
    private final DueOrder order;

    /** Where producers and cancellers leave tasks and removals without the lock. */
    private final HandoffStripes stripes = new HandoffStripes();

    /**
     * The sleeping leader's wake-up time, which lets producers leave tasks on their stripes.
     * Published by the leader right before it sleeps; withdrawn under lock wherever the leader
     * role is given up or taken away.
     */
    private final WakePlan plan = new WakePlan();

    /** Whether shutdown() or stop() has run. Written under lock, never cleared; volatile. */
    private volatile boolean closed;

    /** When the current leader wakes up on its own, in ticker time. Guarded by lock. */
    private long leaderWakeAt;

    /**
     * The worker designated to wait for the task at the head of the queue, or null when there is
     * none. Guarded by lock.
     *
     * <p>Only the leader sleeps with a timeout; every other worker in take() sleeps without one,
     * registered in {@link #followers}. A worker that finds this field empty and the head not yet
     * due takes the role. Leadership can be lost: whenever a new task becomes the head, the thread
     * that inserts it clears this field and unparks the old leader, whose timeout is now too long;
     * so a worker may only clear this field if it still holds the role.
     *
     * <p>No lost wake-up. A worker that leaves take() through the lock does so through its finally
     * block, which wakes one follower as successor whenever it finds the role vacant and tasks
     * queued. The successor is woken as such (not as a helper), so it does not claim a batch task
     * in sleep() but goes on to the lock. There it may find a batch task to claim instead of taking
     * the role; it then leaves through the same finally block, finds the role still vacant, and
     * wakes the next successor. Only helpers, woken for a batch, claim without the lock, and their
     * departure leaves the role as it was: someone else holds it, or a successor is on its way. So
     * while tasks are queued and the role is vacant, some worker is always awake and headed for
     * the lock, and no follower sleeps through the head's due time.
     */
    private @Nullable Waiter leader;

    /** Workers sleeping without a timeout. Guarded by lock. */
    private final Followers followers;

    /**
     * Due tasks taken out of the queue in one go, for workers to claim without the lock; null or
     * used up when there are none. Volatile. Replaced only under the lock, and only when used up
     * (take() makes one only after it found this one empty). See {@link #leader} for who claims.
     */
    private volatile @Nullable ReadyBatch ready;

    /** Figures for meters, read without the lock; written at each take and release of it. */
    private final QueueFigures figures = new QueueFigures();

    /** The current batch, for the figures' readers. Made once, not per reading. */
    private final Supplier<@Nullable ReadyBatch> readyBatch = () -> ready; // volatile read

    /** Whether take() returns null at once, even with tasks left (shutdownNow). Guarded by lock. */
    private boolean stopped;

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this.ticker = ticker;
        this.timedWaits = timedWaits;
        this.order = new DueOrder(ticker.read());
        this.lock = new QueueLock(stripes, plan, figures, order, this::insert, this::removeLocked);
        this.followers = new Followers(lock, readyBatch, this);
    }

    // ---------------------------------------------------------------------------------------------
    // Producers

    /**
     * Adds a new task unless the queue is shut down. Never blocks on the lock, and most of the time
     * does not touch it: the task goes onto the calling thread's stripe, and only a task that needs
     * a worker's attention before the leader wakes anyway is moved into the queue at once.
     *
     * @return false if the queue no longer accepts tasks
     */
    public boolean offer(ScheduledTask<?> task) {
        final QueueLock lock = this.lock;
        long attention = order.attentionTime(task.time); // its due time, or its bucket's move time
        if (plan.mustDrainNow(attention) && lock.tryAcquire()) {
            // Needs attention before the leader's plan ends, and the lock is free: insert it
            // directly. While that plan is in force, the stripes may keep their tasks: each was
            // left there because it needs no attention before the plan ends, so it is due after
            // this one. Without a plan they go first, for equal due times keep submission order.
            try {
                if (lock.drainRequested() || !plan.inForce()) {
                    lock.drainPending();
                }
                if (closed) {
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
     * Puts a repeating task back for its next execution.
     *
     * @param acceptAfterShutdown whether to accept it after shutdown (but never after stop)
     * @return false if the task was not accepted
     */
    boolean requeue(ScheduledTask<?> task, boolean acceptAfterShutdown) {
        lock.acquire();
        try {
            lock.drainPending();
            if (stopped || (closed && !acceptAfterShutdown)) {
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
     * Removes a cancelled task from wherever it is queued; a task still on another thread's stripe
     * is dropped as the stripe is drained, which happens here too. Never blocks: when the lock is
     * busy, the removal is left on the caller's stripe for the lock holder.
     */
    public void remove(ScheduledTask<?> task) {
        int h = task.heapIndex;
        if (QueuePosition.isStaged(h) && stripes.unstage(task, QueuePosition.stagedPosition(h))) {
            return; // the position is read once: a drain may change heapIndex at any moment
        }
        if (QueuePosition.inBatch(h) && unbatch(task, h)) {
            return;
        }
        final QueueLock lock = this.lock;
        if (lock.tryAcquire()) {
            try {
                // Exact under the lock, where no drain is under way.
                if (!removeLocked(task) && QueuePosition.isStaged(task.heapIndex)) {
                    lock.drainPending(); // on another thread's stripe: dropped as it is drained
                }
            } finally {
                lock.release();
            }
            return;
        }
        stripes.pushRemoval(task);
        lock.drainNow(true);
    }

    /**
     * Takes a cancelled task out of the current batch, without the lock. A task of an earlier
     * batch was claimed already: its slot index then finds another task, or none, in this one.
     */
    private boolean unbatch(ScheduledTask<?> task, int h) {
        ReadyBatch b = ready; // volatile read
        return b != null && b.cancel(task, QueuePosition.batchSlot(h));
    }

    /** Removes a task from the batch or from due order; false if it is in neither. Under lock. */
    private boolean removeLocked(ScheduledTask<?> task) {
        int i = task.heapIndex;
        if (QueuePosition.inBatch(i)) {
            return unbatch(task, i); // nothing else to update: the batch is out of the queue
        }
        if (!order.remove(task)) {
            return false; // taken, never queued, or still on a stripe (dropped as it is drained)
        }
        if (closed && order.isEmpty()) {
            wakeAll(); // the last task is gone: idle workers may exit now
        }
        return true;
    }

    /** Adds a task to due order and wakes whoever must re-plan. Under lock. */
    private void insert(ScheduledTask<?> task) {
        boolean wasEmpty = order.isEmpty();
        long attention = order.add(task); // its due time, or its wheel bucket's move time
        Waiter l = leader;
        if (l != null) {
            if (attention - leaderWakeAt < 0) { // due before the leader wakes: it must re-plan
                dropLeader();
                LockSupport.unpark(l.thread);
            }
        } else if (wasEmpty) {
            followers.wakeLast(); // nobody is waiting for anything yet
        }
        // Otherwise a worker is already on its way back into take() and will see the task.
    }

    // ---------------------------------------------------------------------------------------------
    // Consumers

    /**
     * Waits for the next due task, following the leader-follower protocol.
     *
     * @param me the calling worker
     * @return the due task, removed from the queue; or null when the worker should exit: the queue
     *     was stopped, or it is shut down and empty
     */
    @Nullable
    ScheduledTask<?> take(Waiter me) {
        ScheduledTask<?> claimed = claimReady();
        if (claimed != null) {
            return claimed;
        }
        final QueueLock lock = this.lock;
        int helpers = 0;
        boolean locked = true;
        lock.acquire();
        try {
            for (; ; ) {
                // The time first, the stripes second: every task whose offer returned before this
                // reading is then in the queue before anything due by it leaves. Read the other way
                // round, a task staged between the drain and the reading would be left behind a
                // batch of tasks due after it.
                long now = ticker.read();
                lock.drainPending();
                if (stopped) {
                    return null;
                }
                claimed = claimReady(); // another worker may have published a batch meanwhile
                if (claimed != null) {
                    return claimed; // through finally, which passes a vacant role on: see leader
                }
                order.advance(now);
                ScheduledTask<?> first = order.first();
                if (first != null && first.time - now <= 0L) {
                    order.poll(first);
                    ReadyBatch batch = order.pollDueBatch(now);
                    helpers = batch == null ? 0 : batch.remaining(); // before others see it
                    ready = batch; // volatile write
                    return first;
                }
                boolean nothingQueued = first == null && !order.hasWheelTasks();
                if (nothingQueued && closed) {
                    return null;
                }
                if (nothingQueued || leader != null) {
                    first = null; // don't retain a reference while sleeping: it may be cancelled
                    claimed = followers.sleep(me, me != leader, 0L);
                    if (claimed != null) {
                        locked = false;
                        return claimed;
                    }
                } else {
                    long wakeAt = order.wakeTime(first);
                    first = null;
                    leader = me;
                    leaderWakeAt = wakeAt;
                    plan.publish(me.thread, wakeAt);
                    try {
                        followers.sleep(me, me != leader, timedWaits ? Math.max(1L, wakeAt - now) : 0L);
                    } finally {
                        if (leader == me) {
                            dropLeader(); // before the loop drains the stripes: see WakePlan
                        }
                    }
                }
            }
        } finally {
            if (locked) {
                Waiter successor = null;
                if (leader == null && !order.isEmpty()) {
                    // Hand leadership on. The successor is unparked after the lock is released:
                    // woken before, it would only block on the lock and need a second wake-up.
                    successor = followers.pollLast();
                } else if (closed && order.isEmpty()) {
                    wakeAll(); // let idle workers see that there is nothing left
                }
                followers.wakeHelpers(helpers); // they claim without the lock, so wake them now
                lock.release();
                if (successor != null) {
                    LockSupport.unpark(successor.thread);
                }
            }
            if (me.interrupted) {
                me.interrupted = false;
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Claims the next task of the current batch, without the lock; null when there is none. */
    private @Nullable ScheduledTask<?> claimReady() {
        ReadyBatch b = ready; // volatile read
        return b == null ? null : b.claim();
    }

    /**
     * Takes the leader role away or gives it up, and with it the plan that let producers leave
     * tasks on their stripes. Under lock; whoever calls it drains the stripes afterwards (the old
     * leader at the top of its loop, anyone else on release, or the leader it wakes).
     */
    private void dropLeader() {
        leader = null;
        plan.withdraw();
    }

    /** Wakes every sleeping worker. Under lock. */
    private void wakeAll() {
        Waiter l = leader;
        if (l != null) {
            dropLeader();
            LockSupport.unpark(l.thread);
        }
        followers.wakeAll();
    }

    /** Wakes the leader so that it re-reads the ticker: used when a manual ticker moved. */
    void timeAdvanced() {
        lock.acquire();
        try {
            Waiter l = leader;
            if (l != null) {
                dropLeader();
                LockSupport.unpark(l.thread);
            } else if (!order.isEmpty()) {
                followers.wakeLast();
            }
        } finally {
            lock.release();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Shutdown

    /**
     * Stops accepting tasks and removes those that must not run after shutdown.
     *
     * @return the removed tasks, for the caller to cancel outside the lock
     */
    List<ScheduledTask<?>> shutdown(boolean keepDelayed, boolean keepRepeating) {
        lock.acquire();
        try {
            close();
            List<ScheduledTask<?>> removed = List.of();
            if (!keepDelayed || !keepRepeating) {
                long now = ticker.read();
                removed = order.removeIf(t -> t.isPeriodic() ? !keepRepeating : !keepDelayed && t.time - now > 0);
            }
            wakeAll();
            return removed;
        } finally {
            lock.release();
        }
    }

    /**
     * Removes every queued task due after a deadline.
     *
     * @return the removed tasks, for the caller to cancel outside the lock
     */
    List<ScheduledTask<?>> removeDueAfter(long deadline) {
        lock.acquire();
        try {
            lock.drainPending();
            List<ScheduledTask<?>> removed = order.removeIf(t -> t.time - deadline > 0);
            if (closed && order.isEmpty()) {
                wakeAll();
            }
            return removed;
        } finally {
            lock.release();
        }
    }

    /**
     * Stops the queue: takers return null from now on.
     *
     * @return the tasks that were still queued, in due order
     */
    List<ScheduledTask<?>> stop() {
        lock.acquire();
        try {
            close();
            stopped = true;
            List<ScheduledTask<?>> drained = new ArrayList<>(order.size());
            for (ScheduledTask<?> t; (t = claimReady()) != null; ) {
                drained.add(t); // due before anything else
            }
            ready = null; // volatile write
            order.drainTo(drained);
            wakeAll();
            return drained;
        } finally {
            lock.release();
        }
    }

    /**
     * Closes every stripe and moves what was on them into the queue. Under lock. {@link #closed}
     * is set first; the CLOSED marker on each stripe is what rejects a producer.
     */
    private void close() {
        closed = true; // volatile write
        stripes.close(this::insert);
        lock.drainPending();
    }

    // ---------------------------------------------------------------------------------------------
    // Figures

    /**
     * Returns the number of queued tasks, counting those still being handed over and not those
     * whose removal is pending or which were cancelled in a batch. Never takes the lock and never
     * moves a task (see QueueFigures): the value may be stale by a lock holder's moves. A
     * submitter sees its task counted at once, and a canceller sees it gone.
     */
    public int size() {
        return figures.size(stripes, readyBatch);
    }

    /**
     * Returns how long the most overdue queued task is past its due time, or 0 when none is due.
     * Never takes the lock and never moves a task, like {@link #size()}.
     */
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
            ReadyBatch b = ready; // volatile read
            return !order.isEmpty() || (b != null && b.remaining() > 0);
        } finally {
            lock.release();
        }
    }

    /**
     * Whether a waiting task is due at the ticker's reading now, its due time included (where
     * {@link #overdueNanos()} reports 0). Exact, under the lock; for a manual ticker's wait for
     * what came due, not for gauges.
     */
    boolean hasDueTask() {
        lock.acquire();
        try {
            lock.drainPending();
            long now = ticker.read();
            order.advance(now);
            ReadyBatch b = ready; // volatile read
            if (b != null && b.remaining() > 0) {
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
            Waiter l = leader;
            return l == null ? null : l.thread;
        } finally {
            lock.release();
        }
    }

    @Override
    public String toString() {
        return "LeaderFollowerDelayQueue[size = " + size() + "]";
    }
}
