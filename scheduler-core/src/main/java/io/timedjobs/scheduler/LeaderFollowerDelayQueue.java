package io.timedjobs.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Any thread may offer, remove and read the figures; only the pool's workers take. The queue every
 * worker of one scheduler takes its tasks from, in due order, with the leader-follower protocol.
 * This class alone holds the lock, the leader, the followers' sleep and the requests producers
 * leave for the lock's holder; the structures it uses never touch the lock.
 */
final class LeaderFollowerDelayQueue {

    /*
     * Design overview.
     *
     * 1. Due order (DueOrder): by due time, then first in, first out; a heap, and a coarse timing
     *    wheel in front of it for tasks due later (timeouts, mostly, often cancelled before due).
     *
     * 2. Leader-follower, the protocol of DelayQueue (see the Javadoc of the leader field), after
     *    Schmidt and Pyarali's Leader/Followers pattern. Of the workers in take(), at most one, the
     *    leader, sleeps with a timeout: until the head is due or the wheel must move. The others,
     *    the followers, sleep without one (sleep()). A leader that leaves with a task wakes one
     *    follower, the next leader (leave()); so no thread wakes up unless a task is due or the
     *    head changed. Workers park on the thread itself rather than on a Condition, so that
     *    every release of the lock goes through release(), and a wake-up targets one chosen thread.
     *
     * 3. Hand-over (HandoffStripes, WakePlan). A task that needs no attention before the sleeping
     *    leader's planned wake-up stays on its producer's stripe until the leader drains the
     *    stripes; any other is inserted at once, by its producer if the lock is free, else by the
     *    holder on request (drainRequested). Cancels likewise (removalsRequested), or take the task
     *    out of its slot with a CAS.
     *
     * 4. A task inserted ahead of the leader's wake-up time unparks the leader (or, with no leader
     *    and an empty queue, one follower) to re-plan. Any other task wakes nobody.
     *
     * 5. Batches (ReadyBatch). A worker that finds the head due takes up to 32 due tasks at once,
     *    for workers to claim with a CAS, and wakes followers to help: one lock per batch.
     *
     * 6. Shutdown closes the stripes (close()); take() returns null once the queue is then empty.
     *
     * Lock order: the pool's mainLock first, then this lock, never the other way round. Nothing
     * done under this lock takes mainLock, runs a task's code, or calls a listener.
     */

    /**
     * Depths of a stripe at which its producer wakes the leader to move the pile: deep enough that
     * timeouts cancelled soon are mostly cancelled on the stripe, shallow enough that one drain
     * holds the lock for a millisecond or two at most.
     */
    private static final int NUDGE_DEPTH = 1 << 14;

    /**
     * Guards due order, the leader and the followers. Taken only through {@link #acquire} and
     * {@link #tryAcquire}, and let go only through {@link #release}: those keep the figures and
     * perform the requests. No spinning: with more workers than cores, a spinner mostly burns the
     * time slice the holder needs.
     */
    private final ReentrantLock lock = new ReentrantLock();

    private final Ticker ticker;

    /** Whether the leader sleeps with a timeout; not with a manual ticker (see timeAdvanced). */
    private final boolean timedWaits;

    /** The queued tasks: heap, wheel and run. Guarded by lock. */
    private final DueOrder order;

    /** Where producers and cancellers leave tasks and removals without the lock. */
    private final HandoffStripes stripes;

    /** The sleeping leader's wake-up time, published before it sleeps, withdrawn in dropLeader. */
    private final WakePlan plan = new WakePlan();

    /**
     * Requests for the lock's holder, which performs them before it lets go for good: a drain, set
     * by a producer or canceller that pushed something which must not wait but found the lock held;
     * or only the removals, set by a canceller that left one on its stripe. Volatile: set before the
     * requester tries the lock again, read by the holder after it let go (see drainNow).
     */
    private volatile boolean drainRequested;

    private volatile boolean removalsRequested;

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
     * which wakes one follower as successor ({@link #leave}) if it finds the role vacant and tasks
     * queued. A successor, woken as such and not as a helper, never claims a batch task in {@link
     * #sleep} but goes on to the lock. There it may claim a batch task instead of taking the role;
     * it must then pass the role on, and does: it leaves through the same finally block, which
     * wakes the next successor. Only helpers claim without the lock, and they leave the role as
     * they found it. And a task that must not wait reaches due order even when its producer finds
     * the lock held: the producer leaves a request, which the holder performs in {@link #release}
     * after letting go (see {@link #drainNow}), and the insert wakes whoever must re-plan. So while
     * tasks are queued and the role is vacant, some worker is awake and headed for the lock, and
     * no follower sleeps through the head's due time.
     */
    private @Nullable PoolThread leader;

    /** Workers sleeping without a timeout. Guarded by lock. */
    private final Followers followers = new Followers();

    /**
     * Due tasks taken out of the queue in one go, for workers to claim without the lock; or null.
     * Volatile; replaced under the lock, once used up. See {@link #leader} for who claims.
     */
    private volatile @Nullable ReadyBatch ready;

    /** Figures for meters, read without the lock; written at each take and release of it. */
    private final QueueFigures figures = new QueueFigures();

    /** The current batch, for the figures' readers. Made once, not per reading. */
    private final Supplier<@Nullable ReadyBatch> readyBatch = () -> ready; // volatile read

    /** What the stripes' tasks and removals go to as they are drained. Made once, not per drain. */
    private final Consumer<ScheduledTask<?>> insert = this::insert;

    private final Predicate<ScheduledTask<?>> removeLocked = this::removeLocked;

    /**
     * Whether take() returns null at once, even with tasks left (shutdownNow). Volatile, never
     * cleared; written first without the lock by {@link #stopTaking()}, so that no worker takes a
     * task from the moment shutdownNow begins, then again under the lock by {@link #stop()}. A
     * worker reads it before every take, the lock-free claim from a batch included: so after the
     * write, each worker takes at most the one task whose take had already read it as false.
     */
    private volatile boolean stopped;

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this(ticker, timedWaits, new HandoffStripes(), new DueOrder(ticker.read()));
    }

    /** For tests that watch the stripes and the order the queue works on. */
    LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits, HandoffStripes stripes, DueOrder order) {
        this.ticker = ticker;
        this.timedWaits = timedWaits;
        this.stripes = stripes;
        this.order = order;
    }

    // ---- Producers ----

    /**
     * Adds a new task; false if the queue no longer accepts tasks. Never blocks on the lock, and
     * mostly does not touch it: only a task that needs a worker's attention before the leader
     * wakes anyway is moved into the queue at once.
     */
    public boolean offer(ScheduledTask<?> task) {
        long attention = order.attentionTime(task.time); // its due time, or its bucket's move time
        if (plan.mustDrainNow(attention) && tryAcquire()) {
            return insertLocked(task);
        }
        return stage(task, attention);
    }

    /**
     * The rest of {@link #offer} for a task that needs attention before the plan ends, with the
     * lock taken for it: inserts it directly, and lets go. Out of line, so that offer, whose common
     * path only stages, stays small enough to be compiled early and inlined whole.
     */
    private boolean insertLocked(ScheduledTask<?> task) {
        // The stripes' tasks need no attention before the plan ends, so they are due after this
        // one; with no plan they go first, for equal due times keep submission order.
        try {
            if (drainRequested || !plan.inForce()) { // volatile reads
                drainPending();
            }
            if (closed) { // volatile read
                return false;
            }
            insert(task);
            return true;
        } finally {
            release();
        }
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
     * Puts a repeating task back for its next execution; false if it was not accepted, which it
     * is after shutdown only with {@code acceptAfterShutdown}, and never after stop.
     */
    boolean requeue(ScheduledTask<?> task, boolean acceptAfterShutdown) {
        acquire();
        try {
            drainPending();
            if (stopped || (closed && !acceptAfterShutdown)) {
                return false;
            }
            if (task.isNew()) { // a cancel that came before this lock was taken removed nothing
                insert(task);
            }
            return true;
        } finally {
            release();
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
        removeQueued(task, p);
    }

    /**
     * The rest of {@link #remove}, for a task not taken off its stripe: out of line, so that the
     * common cancel (a timeout still on its producer's stripe) stays small.
     */
    private void removeQueued(ScheduledTask<?> task, int p) {
        if (QueuePosition.inBatch(p) && unbatch(task, p)) {
            return;
        }
        if (tryAcquire()) {
            try {
                // Exact under the lock, where no drain is under way.
                if (!removeLocked(task) && QueuePosition.isStaged(task.queuePosition)) {
                    drainPending(); // on another thread's stripe: dropped as it is drained
                }
            } finally {
                release();
            }
            return;
        }
        stripes.pushRemoval(task); // the task is cancelled already: see pushRemoval
        drainNow(true);
    }

    /** Takes a cancelled task out of the current batch, without the lock (see ReadyBatch.cancel). */
    private boolean unbatch(ScheduledTask<?> task, int p) {
        ReadyBatch b = ready; // volatile read
        return b != null && b.cancel(task, QueuePosition.batchSlot(p));
    }

    /** Claims the next task of the current batch, without the lock; null when there is none. */
    private @Nullable ScheduledTask<?> claimReady() {
        ReadyBatch b = ready; // volatile read
        return b == null ? null : b.claim();
    }

    /** Removes a task from the batch or from due order; false if it is in neither. Under lock. */
    private boolean removeLocked(ScheduledTask<?> task) {
        int p = task.queuePosition;
        if (QueuePosition.inBatch(p)) {
            return unbatch(task, p); // nothing else to update: the batch is out of the queue
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
        int helpers = 0;
        boolean locked = true;
        acquire();
        try {
            for (; ; ) {
                // The time first, the stripes second: every task whose offer returned before this
                // reading is then in the queue before anything due by it leaves. Read the other way
                // round, a task staged between the drain and the reading would be left behind a
                // batch of tasks due after it.
                long now = ticker.read();
                drainPending();
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
        release();
        if (nanos > 0L) {
            LockSupport.parkNanos(this, nanos);
        } else {
            LockSupport.park(this);
        }
        // queued: a volatile read, after which helper (plain) is as the waker wrote it.
        if (follower && !me.queued && me.helper) {
            ScheduledTask<?> claimed = claimReady();
            if (claimed != null) {
                return claimed;
            }
        }
        acquire();
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
        release();
        if (next != null) {
            LockSupport.unpark(next.thread);
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
        acquire();
        try {
            if (!wakeLeader() && !order.isEmpty()) {
                followers.wakeLast();
            }
        } finally {
            release();
        }
    }

    // ---- The lock and the requests left for its holder ----

    // acquire(), release(), stage() and drainNow() are package-private for DrainRequestsTest only.

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
    private boolean tryAcquire() {
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
    private void drainPending() {
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

    /** Whether the lock is held; for tests. */
    boolean isLocked() {
        return lock.isLocked();
    }

    /** Whether a drain was asked for and not yet done; for tests. */
    boolean drainRequested() {
        return drainRequested; // volatile read
    }

    // ---- Shutdown ----

    /** Stops accepting tasks; removes and returns those that must not run after shutdown, to cancel. */
    List<ScheduledTask<?>> shutdown(boolean keepDelayed, boolean keepRepeating) {
        acquire();
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
            release();
        }
    }

    /** Removes and returns every queued task due after a deadline, for the caller to cancel. */
    List<ScheduledTask<?>> removeDueAfter(long deadline) {
        acquire();
        try {
            drainPending();
            List<ScheduledTask<?>> removed = order.removeIf(t -> t.time - deadline > 0);
            wakeAllIfDone();
            return removed;
        } finally {
            release();
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
        acquire();
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
            release();
        }
    }

    /**
     * Closes every stripe and moves what was on them into the queue. Under lock. A task whose slot
     * was claimed before its stripe's CLOSED marker was accepted; a producer that finds the marker
     * rejects its task: so accepting and shutting down are atomic to each other, lock-free.
     */
    private void close() {
        closed = true; // volatile write
        stripes.close(insert);
        drainPending();
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
        acquire();
        try {
            drainPending();
            ReadyBatch b = ready; // volatile read
            return !order.isEmpty() || (b != null && b.remaining() > 0);
        } finally {
            release();
        }
    }

    /**
     * Whether a waiting task is due at the ticker's reading now, its due time included (where the
     * overdue figure reports 0). Exact, under the lock, after a drain and after moving the wheel's
     * buckets due by now, as the next take() would do first; for a manual ticker's wait for what
     * came due, not for gauges.
     */
    boolean hasDueTask() {
        acquire();
        try {
            drainPending();
            long now = ticker.read();
            order.advance(now);
            ReadyBatch b = ready; // volatile read
            if (b != null && b.remaining() > 0) {
                return true; // unclaimed tasks of a batch were due when it was taken
            }
            ScheduledTask<?> first = order.first();
            return first != null && first.time - now <= 0;
        } finally {
            release();
        }
    }

    /** Returns the thread currently designated leader; for tests. */
    public @Nullable Thread leader() {
        acquire();
        try {
            return leader == null ? null : leader.thread;
        } finally {
            release();
        }
    }

    @Override
    public String toString() {
        return "LeaderFollowerDelayQueue[size = " + size() + "]";
    }
}
