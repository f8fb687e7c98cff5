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
     * 1. Due order (DueOrder): by due time, then first in, first out; a heap, and a coarse timing
     *    wheel in front of it for tasks due later (timeouts, mostly, often cancelled before due).
     *
     * 2. Leader-follower, the protocol of DelayQueue (see the Javadoc of its leader field), after
     *    Schmidt and Pyarali's Leader/Followers pattern. Of the workers in take(), at most one, the
     *    leader, sleeps with a timeout: until the head is due or the wheel must move. The others,
     *    the followers, sleep without one (Followers). A leader that leaves with a task wakes one
     *    follower, the next leader; so no thread wakes up unless a task is due or the head changed.
     *    Workers park on their own PoolThread, so that every release of the lock goes through
     *    QueueLock.release(), and a wake-up targets one chosen thread.
     *
     * 3. Hand-over (HandoffStripes, WakePlan, QueueLock). A task that needs no attention before the
     *    sleeping leader's planned wake-up stays on its producer's stripe until the leader drains
     *    the stripes; any other is inserted at once, by its producer if the lock is free, else by
     *    the holder on request. Cancels likewise, or take the task out of its slot with a CAS.
     *
     * 4. A task inserted ahead of the leader's wake-up time unparks the leader (or, with no leader
     *    and an empty queue, one follower) to re-plan. Any other task wakes nobody.
     *
     * 5. Batches (ReadyBatch). A worker that finds the head due takes up to 32 due tasks at once,
     *    for workers to claim with a CAS, and wakes followers to help: one lock per batch.
     *
     * 6. Shutdown closes the stripes (close()); take() returns null once the queue is then empty.
     */

    /**
     * Guards due order, the leader and the followers. Lock order: the pool's mainLock first, then
     * this one, never the other way round (see QueueLock).
     */
    private final QueueLock lock;

    private final Ticker ticker;

    /** Whether the leader sleeps with a timeout; not with a manual ticker (see timeAdvanced). */
    private final boolean timedWaits;

    /** The queued tasks: heap, wheel and run. Guarded by lock. */
    private final DueOrder order;

    /** Where producers and cancellers leave tasks and removals without the lock. */
    private final HandoffStripes stripes = new HandoffStripes();

    /** The sleeping leader's wake-up time, published before it sleeps, withdrawn in dropLeader. */
    private final WakePlan plan = new WakePlan();

    /** Whether shutdown() or stop() has run. Written under lock, never cleared; volatile. */
    private volatile boolean closed;

    /** When the current leader wakes up on its own, in ticker time. Guarded by lock. */
    private long leaderWakeAt;

    /**
     * The worker designated to wait for the task at the head of the queue, or null when there is
     * none. Guarded by lock.
     *
     * <p>A worker that finds this field empty and the head not yet due takes the role. Leadership
     * can be lost: the thread that inserts a new head clears this field and unparks the old
     * leader, whose timeout is now too long; so a worker may only clear it if it holds the role.
     *
     * <p>No lost wake-up. Every worker that leaves take() through the lock passes its finally block,
     * which wakes one follower as successor (Followers.leave) if it finds the role vacant and tasks
     * queued. A successor, woken as such and not as a helper, never claims a batch task in
     * Followers.sleep but goes on to the lock. There it may claim a batch task instead of taking
     * the role; it must then pass the role on, and does: it leaves through the same finally block,
     * which wakes the next successor. Only helpers claim without the lock, and they leave the role
     * as they found it. So while tasks are queued and the role is vacant, some worker is awake and
     * headed for the lock, and no follower sleeps through the head's due time.
     */
    private @Nullable PoolThread leader;

    /** Workers sleeping without a timeout. Guarded by lock. */
    private final Followers followers;

    /**
     * Due tasks taken out of the queue in one go, for workers to claim without the lock; or null.
     * Volatile; replaced under the lock, once used up. See {@link #leader} for who claims.
     */
    private volatile @Nullable ReadyBatch ready;

    /** Figures for meters, read without the lock; written at each take and release of it. */
    private final QueueFigures figures = new QueueFigures();

    /** The current batch, for the figures' readers. Made once, not per reading. */
    private final Supplier<@Nullable ReadyBatch> readyBatch = () -> ready; // volatile read

    /**
     * Whether take() returns null at once, even with tasks left (shutdownNow). Volatile, never
     * cleared; written first without the lock by {@link #stopTaking()}, so that no worker takes a
     * task from the moment shutdownNow begins, then again under the lock by {@link #stop()}. A
     * worker reads it before every take, the lock-free claim from a batch included: so after the
     * write, each worker takes at most the one task whose take had already read it as false.
     */
    private volatile boolean stopped;

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this.ticker = ticker;
        this.timedWaits = timedWaits;
        this.order = new DueOrder(ticker.read());
        this.lock = new QueueLock(stripes, plan, figures, order, this::insert, this::removeLocked);
        this.followers = new Followers(lock, readyBatch, this);
    }

    // ---- Producers ----

    /**
     * Adds a new task; false if the queue no longer accepts tasks. Never blocks on the lock, and
     * mostly does not touch it: only a task that needs a worker's attention before the leader
     * wakes anyway is moved into the queue at once.
     */
    public boolean offer(ScheduledTask<?> task) {
        final QueueLock lock = this.lock;
        long attention = order.attentionTime(task.time); // its due time, or its bucket's move time
        if (plan.mustDrainNow(attention) && lock.tryAcquire()) {
            // Needs attention before the plan ends, and the lock is free: insert it directly. The
            // stripes' tasks need none before the plan ends, so they are due after this one; with
            // no plan they go first, for equal due times keep submission order.
            try {
                if (lock.drainRequested() || !plan.inForce()) {
                    lock.drainPending();
                }
                if (closed) { // volatile read
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
     * Removes a cancelled task from wherever it is queued. Never blocks: when the lock is busy, the
     * removal is left on the caller's stripe for the lock holder (see QueueLock.remove).
     */
    public void remove(ScheduledTask<?> task) {
        int h = task.queuePosition; // plain, racy read: confirmed by the CAS in unstage or cancel
        if (QueuePosition.isStaged(h) && stripes.unstage(task, QueuePosition.stagedPosition(h))) {
            return; // the position is read once: a drain may change queuePosition at any moment
        }
        if (QueuePosition.inBatch(h) && unbatch(task, h)) {
            return;
        }
        lock.remove(task); // under the lock, or by its holder
    }

    /** Takes a cancelled task out of the current batch, without the lock (see ReadyBatch.cancel). */
    private boolean unbatch(ScheduledTask<?> task, int h) {
        ReadyBatch b = ready; // volatile read
        return b != null && b.cancel(task, QueuePosition.batchSlot(h));
    }

    /** Claims the next task of the current batch, without the lock; null when there is none. */
    private @Nullable ScheduledTask<?> claimReady() {
        ReadyBatch b = ready; // volatile read
        return b == null ? null : b.claim();
    }

    /** Removes a task from the batch or from due order; false if it is in neither. Under lock. */
    private boolean removeLocked(ScheduledTask<?> task) {
        int i = task.queuePosition;
        if (QueuePosition.inBatch(i)) {
            return unbatch(task, i); // nothing else to update: the batch is out of the queue
        }
        if (!order.remove(task)) {
            return false; // taken, never queued, or still on a stripe (dropped as it is drained)
        }
        wakeAllIfDone(); // the last task may be gone: idle workers may exit now
        return true;
    }

    /** Adds a task to due order and wakes whoever must re-plan. Under lock. */
    private void insert(ScheduledTask<?> task) {
        boolean wasEmpty = order.isEmpty();
        long attention = order.add(task); // its due time, or its wheel bucket's move time
        if (leader != null) {
            if (attention - leaderWakeAt < 0) { // due before the leader wakes: it must re-plan
                wakeLeader();
            }
        } else if (wasEmpty) {
            followers.wakeLast(); // nobody is waiting for anything yet
        }
        // Otherwise a worker is already on its way back into take() and will see the task.
    }

    // ---- Consumers ----

    /**
     * Waits for the next due task, following the leader-follower protocol, and returns it; or null
     * when the calling worker should exit: the queue was stopped, or it is shut down and empty.
     */
    @Nullable
    ScheduledTask<?> take(PoolThread me) {
        if (stopped) { // volatile read: see stopped
            return null;
        }
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
                boolean vacant = leader == null && !order.isEmpty(); // hand the role on: see leader
                if (!vacant) {
                    wakeAllIfDone(); // let idle workers see that there is nothing left
                }
                followers.leave(vacant, helpers);
            }
            if (me.interrupted) {
                me.interrupted = false;
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Takes the leader role away or gives it up, and withdraws its plan. Under lock; the stripes
     * are drained after it (by the old leader, on release, or by the worker it wakes).
     */
    private void dropLeader() {
        leader = null;
        plan.withdraw();
    }

    /** Takes the role from the leader, if any, and wakes it to re-plan; false if none. Under lock. */
    private boolean wakeLeader() {
        PoolThread l = leader;
        if (l == null) {
            return false;
        }
        dropLeader();
        LockSupport.unpark(l.thread);
        return true;
    }

    /** Wakes every sleeping worker. Under lock. */
    private void wakeAll() {
        wakeLeader();
        followers.wakeAll();
    }

    /** Wakes every sleeping worker if the queue is shut down and empty, so they exit. Under lock. */
    private void wakeAllIfDone() {
        if (closed && order.isEmpty()) {
            wakeAll();
        }
    }

    /** Wakes the leader so that it re-reads the ticker: used when a manual ticker moved. */
    void timeAdvanced() {
        lock.acquire();
        try {
            if (!wakeLeader() && !order.isEmpty()) {
                followers.wakeLast();
            }
        } finally {
            lock.release();
        }
    }

    // ---- Shutdown ----

    /** Stops accepting tasks; removes and returns those that must not run after shutdown, to cancel. */
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

    /** Removes and returns every queued task due after a deadline, for the caller to cancel. */
    List<ScheduledTask<?>> removeDueAfter(long deadline) {
        lock.acquire();
        try {
            lock.drainPending();
            List<ScheduledTask<?>> removed = order.removeIf(t -> t.time - deadline > 0);
            wakeAllIfDone();
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
        stopped = true; // volatile write
    }

    /** Stops the queue, so that takers return null from now on; returns what it held, in due order. */
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
     * Closes every stripe and moves what was on them into the queue. Under lock. A task whose slot
     * was claimed before its stripe's CLOSED marker was accepted; a producer that finds the marker
     * rejects its task: so accepting and shutting down are atomic to each other, lock-free.
     */
    private void close() {
        closed = true; // volatile write
        stripes.close(this::insert);
        lock.drainPending();
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

    /** Whether any task is queued or handed over, exactly, under the lock; see QueueLock. */
    boolean hasTasks() {
        return lock.hasTasks(readyBatch);
    }

    /** Whether a waiting task is due now, its due time included, exactly; see QueueLock. */
    boolean hasDueTask() {
        return lock.hasDueTask(ticker, readyBatch);
    }

    /** Returns the thread currently designated leader; for tests. */
    public @Nullable Thread leader() {
        lock.acquire();
        try {
            return leader == null ? null : leader.thread;
        } finally {
            lock.release();
        }
    }

    @Override
    public String toString() {
        return "LeaderFollowerDelayQueue[size = " + size() + "]";
    }
}
