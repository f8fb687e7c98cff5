package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Only the pool's workers take; only LeaderFollowerDelayQueue calls the rest, under the queue's
 * lock unless a method says otherwise. The lock is taken and let go through QueueLock alone, and
 * here only in take(), sleep() and leave(). The consumer side of the queue: the leader-follower
 * protocol of take(), the leader role and its plan, the followers, and the batch of due tasks
 * that workers claim from without the lock.
 */
final class WaitingWorkers {

    /** The queue's lock: taken and let go only through it, here in take(), sleep() and leave(). */
    private final QueueLock lock;

    /** What a sleeping worker parks on, as thread dumps show it: the queue. */
    private final Object blocker;

    /** The queued tasks: heap, wheel and run. Guarded by lock. */
    private final DueOrder order;

    private final Ticker ticker;

    /** Whether the leader sleeps with a timeout; not with a manual ticker (see timeAdvanced). */
    private final boolean timedWaits;

    /** The sleeping leader's wake-up time, published before it sleeps, withdrawn in dropLeader. */
    private final WakePlan plan;

    /**
     * The worker designated to wait for the task at the head of the queue, or null when there is
     * none. Guarded by lock.
     *
     * <p>A worker that finds this field empty and the head not yet due takes the role. Leadership
     * can be lost: the thread that inserts a new head clears this field and unparks the old
     * leader, whose timeout is now too long; so a worker may only clear it if it holds the role.
     *
     * <p>No lost wake-up. Every worker that leaves take() through the lock passes its finally block,
     * which wakes one follower as successor ({@link #leave}) if it finds the role vacant and tasks
     * queued. A successor, woken as such and not as a helper, never claims a batch task in {@link
     * #sleep} but goes on to the lock. There it may claim a batch task instead of taking the role;
     * it must then pass the role on, and does: it leaves through the same finally block, which
     * wakes the next successor. Only helpers claim without the lock, and they leave the role as
     * they found it. And a task that must not wait reaches due order even when its producer finds
     * the lock held: the producer leaves a request, which the holder performs in {@link
     * QueueLock#release} after letting go (see {@link QueueLock#drainNow}), and the insert wakes
     * whoever must re-plan ({@link #taskInserted}). So while tasks are queued and the role is
     * vacant, some worker is awake and headed for the lock, and no follower sleeps through the
     * head's due time.
     */
    private @Nullable PoolThread leader;

    /** When the current leader wakes up on its own, in ticker time. Guarded by lock. */
    private long leaderWakeAt;

    /** Workers sleeping without a timeout. Guarded by lock. */
    private final Followers followers = new Followers();

    /**
     * Due tasks taken out of the queue in one go, for workers to claim without the lock; or null.
     * Volatile; replaced under the lock, once used up. See {@link #leader} for who claims.
     */
    private volatile @Nullable ReadyBatch ready;

    /**
     * Whether take() returns null at once, even with tasks left (shutdownNow). Volatile, never
     * cleared; written first without the lock by {@link #stopTaking()}, so that no worker takes a
     * task from the moment shutdownNow begins, then again under the lock by {@link #stop}. A
     * worker reads it before every take, the lock-free claim from a batch included: so after the
     * write, each worker takes at most the one task whose take had already read it as false.
     */
    private volatile boolean stopped;

    WaitingWorkers(Object blocker, QueueLock lock, DueOrder order, WakePlan plan, Ticker ticker, boolean timedWaits) {
        this.blocker = blocker;
        this.lock = lock;
        this.order = order;
        this.plan = plan;
        this.ticker = ticker;
        this.timedWaits = timedWaits;
    }

    // ---- Taking ----

    /**
     * Waits for the next due task, following the leader-follower protocol, and returns it; or null
     * when the calling worker should exit: the queue was stopped, or it is shut down and empty.
     * Called without the lock.
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
                if (nothingQueued && lock.isClosed()) {
                    return null;
                }
                if (nothingQueued || leader != null) {
                    first = null; // don't retain a reference while sleeping: it may be cancelled
                    claimed = sleep(me, true, 0L);
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
                        sleep(me, false, timedWaits ? Math.max(1L, wakeAt - now) : 0L);
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
                leave(vacant, helpers);
            }
            if (me.interrupted) {
                me.interrupted = false;
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Releases the lock, parks, and takes the lock back. A follower registers itself first; the
     * leader does not (the leader field names it). A follower woken as a helper claims a task from
     * the batch without taking the lock back; one woken as the leader's successor never does (see
     * leader). An interrupt is put aside: see PoolThread.interrupted.
     *
     * @param nanos how long to sleep at most; 0 for no limit
     * @return a task claimed from a batch, with the lock not held; or null, with the lock held
     */
    private @Nullable ScheduledTask<?> sleep(PoolThread me, boolean follower, long nanos) {
        if (follower && !me.queued) { // volatile read
            followers.add(me);
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
            ScheduledTask<?> claimed = claimReady();
            if (claimed != null) {
                return claimed;
            }
        }
        lock.acquire();
        if (me.queued) { // woken by something other than a waker: deregister, look again
            followers.remove(me);
        }
        return null;
    }

    /**
     * Lets go of the lock for a worker leaving take(). Helpers for a new batch are woken first:
     * they claim without the lock. The successor to a vacant leader role, if {@code successor} is
     * asked for, is unparked after the lock is released: woken before, it would only block on the
     * lock and need a second wake-up.
     */
    private void leave(boolean successor, int helpers) {
        PoolThread next = successor ? followers.pollLast() : null;
        followers.wakeHelpers(helpers);
        lock.release();
        if (next != null) {
            LockSupport.unpark(next.thread);
        }
    }

    // ---- The batch, without the lock ----

    /** Claims the next task of the current batch, without the lock; null when there is none. */
    private @Nullable ScheduledTask<?> claimReady() {
        ReadyBatch b = ready; // volatile read
        return b == null ? null : b.claim();
    }

    /**
     * Takes a cancelled task out of the current batch, with or without the lock (see
     * ReadyBatch.cancel); {@code p} is the task's batch position.
     */
    boolean unbatch(ScheduledTask<?> task, int p) {
        ReadyBatch b = ready; // volatile read
        return b != null && b.cancel(task, QueuePosition.batchSlot(p));
    }

    /** Returns the current batch, or null; any thread, for the figures. A volatile read. */
    @Nullable
    ReadyBatch readyBatch() {
        return ready; // volatile read
    }

    /** Whether the current batch holds a task neither claimed nor cancelled. */
    boolean hasBatchTasks() {
        ReadyBatch b = ready; // volatile read
        return b != null && b.remaining() > 0;
    }

    // ---- Stopping ----

    /**
     * Makes every take() from now on return null, without the lock and without removing a task:
     * the first step of shutdownNow. Any thread.
     */
    void stopTaking() {
        stopped = true; // volatile write
    }

    /** Whether take() returns null at once; a volatile read. */
    boolean isStopped() {
        return stopped; // volatile read
    }

    /** Stops taking, and moves the batch's unclaimed tasks to {@code drained}, in due order. */
    void stop(List<ScheduledTask<?>> drained) {
        stopped = true;
        for (ScheduledTask<?> t; (t = claimReady()) != null; ) {
            drained.add(t); // due before anything else
        }
        ready = null; // volatile write
    }

    // ---- Waking ----

    /**
     * Takes the leader role away or gives it up, and withdraws its plan. The stripes are drained
     * after it (by the old leader, on release, or by the worker it wakes).
     */
    private void dropLeader() {
        leader = null;
        plan.withdraw();
    }

    /**
     * Wakes whoever must re-plan for a task just added to due order, which needs attention at
     * {@code attention}: the leader if it would wake later (it loses the role), or, with no leader
     * and the queue empty before, one follower.
     */
    void taskInserted(long attention, boolean wasEmpty) {
        if (leader != null) {
            if (attention - leaderWakeAt < 0) { // due before the leader wakes: it must re-plan
                wakeLeader();
            }
        } else if (wasEmpty) {
            followers.wakeLast(); // nobody is waiting for anything yet
        }
        // Otherwise a worker is already on its way back into take() and will see the task.
    }

    /** Takes the role from the leader, if any, and wakes it to re-plan; false if none. */
    private boolean wakeLeader() {
        PoolThread l = leader;
        if (l == null) {
            return false;
        }
        dropLeader();
        LockSupport.unpark(l.thread);
        return true;
    }

    /** Wakes every sleeping worker. */
    void wakeAll() {
        wakeLeader();
        followers.wakeAll();
    }

    /** Wakes every sleeping worker if the queue is shut down and empty, so they exit. */
    void wakeAllIfDone() {
        if (lock.isClosed() && order.isEmpty()) {
            wakeAll();
        }
    }

    /** Wakes the leader so that it re-reads the ticker, or with none one follower if tasks wait. */
    void timeAdvanced() {
        if (!wakeLeader() && !order.isEmpty()) {
            followers.wakeLast();
        }
    }

    /** Returns the thread currently designated leader, or null. */
    @Nullable
    Thread leaderThread() {
        PoolThread l = leader;
        return l == null ? null : l.thread;
    }
}
