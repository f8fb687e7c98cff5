package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The queue every worker of one scheduler takes its tasks from: a min-heap ordered by due time,
 * with a coarse timing wheel and a sorted run in front of it, consumed with the leader-follower
 * protocol.
 *
 * <p>This class is thread-safe. The heap, the wheel, the run and the waiters are guarded by one
 * lock; producers hand new tasks over on lock-free stripes, and usually do not touch the lock.
 */
public final class LeaderFollowerDelayQueue {

    /*
     * Design overview.
     *
     * 1. The heap (TaskHeap). A binary min-heap ordered by (time, sequence): due time first, then
     *    the order tasks entered, so equal times run first in, first out. Every task records where
     *    it is (ScheduledTask.heapIndex, encoded by QueuePosition), which makes removal of an
     *    arbitrary task, the common case when timeouts are cancelled, cheap in every structure. A
     *    task that leaves one is cleared from it at once, so the queue never retains a task it no
     *    longer holds.
     *
     * 2. Leader-follower. Any number of workers call take(). At most one of them, the leader, sleeps
     *    with a timeout: the time until the head is due. The others, the followers, sleep without
     *    one and cost nothing. When the leader leaves with a task, it wakes one follower, which
     *    becomes the next leader; so however many tasks are pending, there is at most one timed
     *    sleeper, and no thread wakes up unless a task is due or the head changed. This is the
     *    protocol of java.util.concurrent.DelayQueue (see the Javadoc of its leader field), after
     *    Schmidt and Pyarali's Leader/Followers pattern. Workers sleep with LockSupport.park on
     *    their own Waiter rather than on a Condition, so that every release of the lock goes
     *    through unlock() below, and so that a wake-up targets exactly one chosen thread.
     *
     * 3. Stripes and the plan. Submitting threads do not queue up on the lock, and most of the
     *    time do not touch it. Each thread hands its tasks over on its stripe (chosen by thread id,
     *    padded to a cache line of its own): a chain of chunks whose slots it claims with one atomic
     *    increment. A leader about to sleep publishes its plan, the time it will wake up; a task
     *    that needs no attention before then stays on the stripe, and the leader moves every stripe
     *    into the queue when it wakes (see mustDrainNow for why nothing is missed). A task needed
     *    sooner, or offered while no plan is in force, is inserted at once: directly when the lock
     *    is free, else by the holder, which sees drainRequested when it lets go (unlock() checks
     *    after releasing). Chunks keep submission order. A stripe that grows deep wakes the leader
     *    to move it, and a worker's take() drains every stripe too.
     *
     * 4. Cancellation. A task cancelled while still on the caller's stripe leaves its slot with a
     *    CAS, without the lock. Otherwise the canceller removes it under the lock, or, finding the
     *    lock busy, leaves a removal record on its stripe for the holder, which performs it before
     *    it lets go. Either way nothing keeps the task once cancel() has returned.
     *
     * 5. New heads. A task inserted ahead of the leader's wake-up time unparks the leader (or,
     *    with no leader, one follower) so that it sleeps again for the new head. A task that lands
     *    anywhere else wakes nobody.
     *
     * 6. The wheel (TimingWheel). Tasks due more than a bucket or so ahead (timeouts, mostly, which
     *    are often cancelled before they come due) do not enter the heap at first but a coarse
     *    timing wheel, where adding and cancelling are O(1). Tasks beyond its reach go straight to
     *    the heap. Order is unaffected: sequence numbers are given as tasks enter the queue.
     *
     * 7. The run (SortedRun). When a bucket is about to come due (one bucket ahead of "now"), its
     *    tasks are sorted once and appended to the run, consumed from the front in O(1). The head
     *    of the queue is the earlier of the heap's and the run's. The leader's wake-up time is the
     *    earlier of that head's due time and the wheel's next move time.
     *
     * 8. Batches (ReadyBatch). A worker that finds the head due takes up to 32 due tasks at once
     *    into a batch that every worker claims from with a CAS instead of the lock, and wakes
     *    sleeping followers to help; so a burst of due tasks costs one lock acquisition per batch.
     *
     * 9. Shutdown. shutdown() closes every stripe with a CLOSED marker, moving what was on it into
     *    the queue. A claim made before the marker was accepted; a producer that finds the marker
     *    rejects its task. So "accept" and "shut down" are atomic to each other without producers
     *    taking the lock. take() returns null once the queue is shut down and empty, which is how
     *    workers learn to exit.
     */

    /**
     * Guards the heap, the wheel, the run, the waiters and the plan. Lock order: the pool's
     * mainLock first, then this one, never the other way round: nothing done under this lock takes
     * mainLock (or calls a task's code, or a listener).
     */
    private final ReentrantLock lock = new ReentrantLock();

    private final Ticker ticker;

    /**
     * Whether the leader sleeps with a timeout. False for a manual ticker, whose time moves only
     * when it is advanced: then the leader sleeps until {@link #timeAdvanced()} wakes it.
     */
    private final boolean timedWaits;

    /** The queued tasks, in due order: heap, wheel and run. Guarded by lock. */
    private final DueOrder order;

    /**
     * Where producers and cancellers leave their tasks and removals without the lock. Emptied
     * only under the lock.
     */
    private final HandoffStripes stripes = new HandoffStripes();

    /** Where the stripes' live tasks go as they are drained: inserted. Made once, not per drain. */
    private final Consumer<ScheduledTask<?>> insertDrained = this::insert;

    /** What the stripes' removals do as they are drained. Made once, not per drain. */
    private final Predicate<ScheduledTask<?>> removeDrained = this::removeLocked;

    /**
     * Set by a producer or canceller that pushed something which must not wait (see {@link
     * #mustDrainNow}) but found the lock held: the holder drains before it lets go for good.
     */
    private volatile boolean drainRequested;

    /**
     * Set by a canceller that left a removal on its stripe because the lock was held: the holder
     * performs the removals before it lets go for good, without draining the stripes' tasks.
     */
    private volatile boolean removalsRequested;

    /**
     * The sleeping leader's wake-up time, which lets producers leave tasks on their stripes.
     * Published by the leader right before it sleeps; withdrawn under lock wherever the leader
     * role is given up or taken away.
     */
    private final WakePlan plan = new WakePlan();

    /**
     * Depths of a stripe at which its producer wakes the leader to move the pile into the queue,
     * so that it does not grow for as long as the leader's plan lasts. Large enough that timeouts
     * cancelled soon after they were set are mostly cancelled on the stripe, without the lock;
     * small enough that one drain holds the lock for a millisecond or two at most.
     */
    private static final int NUDGE_DEPTH = 1 << 14;

    /** Whether the stripes are closed: shutdown() has run. Set under lock, never cleared. */
    private volatile boolean closed;

    /** When the current leader will wake up on its own, in ticker time. Guarded by lock. */
    private long leaderWakeAt;

    /**
     * The worker designated to wait for the task at the head of the queue, or null when there is
     * none. Guarded by lock.
     *
     * <p>Only the leader sleeps with a timeout (until the head is due); every other worker in
     * take() sleeps without one, registered in {@link #followers}. A worker that finds this field
     * empty and the head not yet due takes the role and sleeps until the head is due. On its way
     * out of take(), a worker whose departure left no leader while tasks remain wakes one
     * follower, which takes the role over; so when a leader returns with a task, exactly one
     * follower wakes up.
     *
     * <p>Leadership can be lost: whenever a new task becomes the head, the thread that inserts it
     * clears this field and unparks the old leader, because its timeout is now too long. A worker
     * may therefore only clear this field if it still holds the role.
     */
    private @Nullable Waiter leader;

    /**
     * Workers sleeping without a timeout, most recent last. A waker removes the waiter it wakes,
     * so a waiter still registered after it woke up had a spurious wake-up. Guarded by lock.
     */
    private final ArrayDeque<Waiter> followers = new ArrayDeque<>();

    /**
     * Due tasks taken out of the queue in one go, for workers to claim without the lock; null or
     * used up when there are none. A new batch is made only under the lock, and only when this one
     * is used up (take() makes one only after it found this one empty).
     *
     * <p>No lost wake-up: only a follower woken as a helper claims from this batch in sleep(),
     * without the lock. A follower woken as the successor to a vacant leader role (see {@link
     * #leader}) always goes on to the lock: had it claimed a batch task there instead, it would
     * have left take() without passing the role on, and the followers still asleep would have
     * slept through the head's due time while the role stayed vacant. Through the lock, a worker
     * leaves take() only through its finally block, which wakes the next successor whenever the
     * role is vacant and tasks remain; a helper that claims nothing goes on to the lock the same.
     */
    private volatile @Nullable ReadyBatch ready;

    /** Figures for meters, read without the lock; written at each take and release of it. */
    private final QueueFigures figures = new QueueFigures();

    /** The current batch, for the figures' readers. Made once, not per reading. */
    private final Supplier<@Nullable ReadyBatch> readyBatch = () -> ready;

    /** Whether take() returns null at once, even with tasks left (shutdownNow). Guarded by lock. */
    private boolean stopped;

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this.ticker = ticker;
        this.timedWaits = timedWaits;
        this.order = new DueOrder(ticker.read());
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
        final ReentrantLock lock = this.lock;
        long attention = order.attentionTime(task.time);
        if (mustDrainNow(attention) && tryLock()) {
            // Needs attention before the leader's plan ends, and the lock is free: insert it
            // directly. While that plan is in force, the stripes may keep their tasks: each was
            // left there because it needs no attention before the plan ends, so it is due after
            // this one. Without a plan they go first, for equal due times keep submission order.
            try {
                if (drainRequested || !plan.inForce()) {
                    drainPending();
                }
                if (isShutDown()) {
                    return false;
                }
                insert(task);
                return true;
            } finally {
                unlock();
            }
        }
        int depth = stripes.stage(task);
        if (depth == 0) {
            return false;
        }
        // The push comes first and the look at the plan second: see mustDrainNow.
        if (mustDrainNow(attention)) {
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
     * Whether a task just pushed onto a stripe must be moved into the queue now, rather than when
     * the leader next wakes up (see {@link WakePlan} for why a task left there is never forgotten).
     * Attention means its due time, or for a task bound for the wheel its bucket's move time, which
     * is never later (so the move time is used for both).
     */
    private boolean mustDrainNow(long attention) {
        return plan.mustDrainNow(attention);
    }

    /**
     * Has what the stripes hold moved into the queue now (or, with {@code removalsOnly}, only the
     * removals performed): here when the lock is free, else by its holder, which sees {@link
     * #drainRequested} or {@link #removalsRequested} when it lets go. Reading the lock's state
     * before trying it spares a failing CAS on the lock's cache line, which two producers would
     * otherwise pass back and forth.
     */
    private void drainNow(boolean removalsOnly) {
        if (tryDrain(removalsOnly)) {
            return;
        }
        if (removalsOnly) {
            removalsRequested = true;
        } else {
            drainRequested = true;
        }
        // Written, then read: either this thread sees the lock free, or the holder, whose release
        // comes after this read, sees the request (unlock reads it after releasing).
        tryDrain(removalsOnly);
    }

    private boolean tryDrain(boolean removalsOnly) {
        if (!tryLock()) {
            return false;
        }
        if (removalsOnly) {
            drainRemovals();
        } else {
            drainPending();
        }
        unlock();
        return true;
    }

    /**
     * Puts a repeating task back for its next execution.
     *
     * @param acceptAfterShutdown whether to accept it after shutdown (but never after stop)
     * @return false if the task was not accepted
     */
    boolean requeue(ScheduledTask<?> task, boolean acceptAfterShutdown) {
        lock();
        try {
            drainPending();
            if (stopped || (isShutDown() && !acceptAfterShutdown)) {
                return false;
            }
            if (task.isNew()) { // a cancel that came before this lock was taken removed nothing
                insert(task);
            }
            return true;
        } finally {
            unlock();
        }
    }

    /**
     * Removes a cancelled task from wherever it is queued: O(log n) in the heap, O(1) in the wheel
     * and the run; a task still on a stripe is dropped as the stripe is drained, which happens here
     * too. Never blocks: when the lock is busy, the removal is left on the caller's stripe for the
     * lock holder, which performs it before it lets go.
     */
    public void remove(ScheduledTask<?> task) {
        int h = task.heapIndex;
        if (QueuePosition.isStaged(h) && stripes.unstage(task, QueuePosition.stagedPosition(h))) {
            return; // the position is read once: a drain may change heapIndex at any moment
        }
        if (QueuePosition.inBatch(h) && unbatch(task, h)) {
            return;
        }
        if (tryLock()) {
            try {
                if (!removeLocked(task) && isStaged(task)) {
                    drainPending(); // on another thread's stripe: dropped as it is drained
                }
            } finally {
                unlock();
            }
            return;
        }
        stripes.pushRemoval(task);
        drainNow(true);
    }

    /**
     * Takes a cancelled task out of the current batch, without the lock. A task of an earlier
     * batch was claimed already: its slot index then finds another task, or none, in this one.
     */
    private boolean unbatch(ScheduledTask<?> task, int h) {
        ReadyBatch b = ready;
        return b != null && b.cancel(task, QueuePosition.batchSlot(h));
    }

    /**
     * Whether a task is still on a stripe. Exact under lock, where no drain can be under way;
     * without it, only a hint to be confirmed (see HandoffStripes.unstage).
     */
    private static boolean isStaged(ScheduledTask<?> task) {
        return QueuePosition.isStaged(task.heapIndex);
    }

    /** Removes a task from the heap, the wheel or the run; false if it is in none of them. */
    private boolean removeLocked(ScheduledTask<?> task) {
        int i = task.heapIndex;
        if (QueuePosition.inBatch(i)) {
            return unbatch(task, i); // nothing else to update: the batch is out of the queue
        }
        if (!order.remove(task)) {
            return false; // taken, never queued, or still on a stripe (dropped as it is drained)
        }
        if (isShutDown() && isEmpty()) {
            wakeAll(); // the last task is gone: idle workers may exit now
        }
        return true;
    }

    /** Brings the queue up to date with what producers and cancellers handed over. Called under lock. */
    private void drainPending() {
        // Cleared before the stripes are read, so that a later request is seen by unlock; written
        // only when set, for this runs on every take().
        if (drainRequested) {
            drainRequested = false;
        }
        if (removalsRequested) {
            removalsRequested = false;
        }
        stripes.drainTasks(insertDrained); // first: a task staged and then cancelled is dropped here
        stripes.drainRemovals(removeDrained);
    }

    /**
     * Performs the removals cancellers left, and drains the stripes only if one of the tasks is
     * still on one: moving the stripes' live tasks into the queue here would only send their own
     * cancels, soon after, to the lock. Called under lock.
     */
    private void drainRemovals() {
        if (removalsRequested) {
            removalsRequested = false; // before the removals are read: a later request is seen by unlock
        }
        if (stripes.drainRemovals(removeDrained)) { // one of the tasks is still on a stripe
            drainPending();
        }
    }

    /** Adds a task to the wheel or the heap and wakes whoever must re-plan. Called under lock. */
    private void insert(ScheduledTask<?> task) {
        boolean wasEmpty = isEmpty();
        long attention = order.add(task); // its due time, or its wheel bucket's move time
        Waiter l = leader;
        if (l != null) {
            if (attention - leaderWakeAt < 0) {
                // Due before the leader would wake up: it must re-plan.
                dropLeader();
                LockSupport.unpark(l.thread);
            }
        } else if (wasEmpty) {
            wakeFollower(); // nobody is waiting for anything yet
        }
        // Otherwise a worker is already on its way back into take() and will see the task.
    }

    /**
     * Takes the lock. Only workers and shutdown block here: producers and cancellers never do (see
     * offer and remove). No spinning: with more workers than cores, a spinner mostly burns the
     * time slice the lock holder needs.
     */
    private void lock() {
        lock.lock();
        figures.moving();
    }

    /**
     * Takes the lock if it is free, without waiting. Reading the lock's state before trying it
     * spares a failing CAS on the lock's cache line, which two producers would otherwise pass back
     * and forth.
     */
    private boolean tryLock() {
        final ReentrantLock lock = this.lock;
        if (lock.isLocked() || !lock.tryLock()) {
            return false;
        }
        figures.moving();
        return true;
    }

    /**
     * Releases the lock, then takes it back if a producer or a canceller asked for a drain while
     * it was held ({@link #drainRequested}, {@link #removalsRequested}: that thread found the lock
     * busy, so it counts on the holder). Every release of the lock goes through here.
     */
    private void unlock() {
        final ReentrantLock lock = this.lock;
        for (; ; ) {
            figures.publish(order);
            lock.unlock();
            boolean drain = drainRequested;
            if (!(drain || removalsRequested) || !tryLock()) {
                return;
            }
            if (drain) {
                drainPending();
            } else {
                drainRemovals();
            }
        }
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
        int helpers = 0;
        boolean locked = true;
        lock();
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
                    return claimed;
                }
                order.advance(now);
                ScheduledTask<?> first = order.first();
                if (first == null && !order.hasWheelTasks()) {
                    if (isShutDown()) {
                        return null;
                    }
                    claimed = sleep(me, false, 0L);
                    if (claimed != null) {
                        locked = false;
                        return claimed;
                    }
                    continue;
                }
                long wakeAt;
                if (first != null) {
                    if (first.time - now <= 0L) {
                        order.poll(first);
                        helpers = takeDueBatch(now);
                        return first;
                    }
                    wakeAt = first.time;
                    first = null; // don't retain a reference while sleeping: it may be cancelled
                    if (order.hasWheelTasks()) {
                        long move = order.nextMoveTime();
                        if (move - wakeAt < 0) {
                            wakeAt = move;
                        }
                    }
                } else {
                    wakeAt = order.nextMoveTime();
                }
                if (leader != null) {
                    claimed = sleep(me, false, 0L);
                    if (claimed != null) {
                        locked = false;
                        return claimed;
                    }
                } else {
                    leader = me;
                    leaderWakeAt = wakeAt;
                    plan.publish(me.thread, wakeAt);
                    try {
                        sleep(me, timedWaits, Math.max(1L, wakeAt - now));
                    } finally {
                        if (leader == me) {
                            dropLeader(); // before the loop drains the stripes: see mustDrainNow
                        }
                    }
                }
            }
        } finally {
            if (locked) {
                Waiter successor = null;
                if (leader == null && !isEmpty()) {
                    // Hand leadership on. The successor is woken after the lock is released: woken
                    // before, it would only block on the lock and need a second wake-up.
                    successor = followers.pollLast();
                    if (successor != null) {
                        successor.queued = false;
                    }
                } else if (isShutDown() && isEmpty()) {
                    wakeAll(); // let idle workers see that there is nothing left
                }
                // Sleeping followers help with a batch; they claim from it without the lock, so they
                // may be woken while it is held.
                for (Waiter w; helpers > 0 && (w = followers.pollLast()) != null; helpers--) {
                    w.helper = true; // before queued is written: published by that volatile write
                    w.queued = false;
                    LockSupport.unpark(w.thread);
                }
                unlock();
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

    /**
     * Releases the lock, parks, and takes the lock back. A follower registers itself first; a
     * leader does not (the leader field names it). A follower woken to help with a batch claims a
     * task from it without taking the lock back.
     *
     * <p>An interrupt found here is cleared and noted in the waiter, to be restored when take()
     * returns: workers are stopped through the queue's state, so an interrupt here is a late
     * cancel(true) aimed at a task this thread ran before, and it must not make park() return at
     * once in a loop.
     *
     * @return a task claimed from a batch, with the lock not held; or null, with the lock held
     */
    private @Nullable ScheduledTask<?> sleep(Waiter me, boolean timed, long nanos) {
        boolean follower = me != leader;
        if (follower && !me.queued) {
            me.helper = false;
            followers.addLast(me);
            me.queued = true;
        }
        if (Thread.interrupted()) {
            me.interrupted = true;
        }
        unlock();
        if (timed) {
            LockSupport.parkNanos(this, nanos);
        } else {
            LockSupport.park(this);
        }
        if (follower && !me.queued && me.helper) { // woken to help with a batch: see ready
            ScheduledTask<?> claimed = claimReady();
            if (claimed != null) {
                return claimed;
            }
        }
        lock();
        if (me.queued) { // woken by something other than a waker: deregister, look again
            followers.remove(me);
            me.queued = false;
        }
        return null;
    }

    /**
     * Moves further due tasks from the heap into a new batch, after the caller polled the first
     * one. Called under lock, only when the previous batch is used up.
     *
     * @return how many tasks the batch holds
     */
    private int takeDueBatch(long now) {
        ScheduledTask<?> next = order.first();
        if (next == null || next.time - now > 0L) {
            ready = null;
            return 0;
        }
        ScheduledTask<?>[] tasks = new ScheduledTask<?>[ReadyBatch.MAX_TASKS];
        int n = 0;
        do {
            tasks[n] = order.poll(next);
            next.heapIndex = QueuePosition.batch(n);
            n++;
            next = order.first();
        } while (n < ReadyBatch.MAX_TASKS && next != null && next.time - now <= 0L);
        ready = new ReadyBatch(tasks, n);
        return n;
    }

    /** Claims the next task of the current batch, without the lock; null when there is none. */
    private @Nullable ScheduledTask<?> claimReady() {
        ReadyBatch b = ready;
        return b == null ? null : b.claim();
    }

    /** Wakes the follower that went to sleep last, if any. Called under lock. */
    private void wakeFollower() {
        Waiter w = followers.pollLast();
        if (w != null) {
            w.queued = false;
            LockSupport.unpark(w.thread);
        }
    }

    /**
     * Takes the leader role away or gives it up, and with it the plan that let producers leave
     * tasks on their stripes. Called under lock; whoever calls it drains the stripes afterwards
     * (the old leader at the top of its loop, anyone else in unlock, or the leader it wakes).
     */
    private void dropLeader() {
        leader = null;
        plan.withdraw();
    }

    /** Wakes every sleeping worker. Called under lock. */
    private void wakeAll() {
        Waiter l = leader;
        if (l != null) {
            dropLeader();
            LockSupport.unpark(l.thread);
        }
        for (Waiter w; (w = followers.pollLast()) != null; ) {
            w.queued = false;
            LockSupport.unpark(w.thread);
        }
    }

    /** Wakes the leader so that it re-reads the ticker: used when a manual ticker moved. */
    void timeAdvanced() {
        lock();
        try {
            Waiter l = leader;
            if (l != null) {
                dropLeader();
                LockSupport.unpark(l.thread);
            } else if (!isEmpty()) {
                wakeFollower();
            }
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Shutdown

    /** Closes every stripe and moves what was on them into the queue. Called under lock. */
    private void closeStaging() {
        closed = true;
        stripes.close(insertDrained);
    }

    /**
     * Stops accepting tasks and removes those that must not run after shutdown.
     *
     * @return the removed tasks, for the caller to cancel outside the lock
     */
    List<ScheduledTask<?>> shutdown(boolean keepDelayed, boolean keepRepeating) {
        lock();
        try {
            closeStaging();
            drainPending();
            List<ScheduledTask<?>> removed = List.of();
            if (!keepDelayed || !keepRepeating) {
                long now = ticker.read();
                removed = order.removeIf(t -> t.isPeriodic() ? !keepRepeating : !keepDelayed && t.time - now > 0);
            }
            wakeAll();
            return removed;
        } finally {
            unlock();
        }
    }

    /**
     * Removes every queued task due after a deadline.
     *
     * @return the removed tasks, for the caller to cancel outside the lock
     */
    List<ScheduledTask<?>> removeDueAfter(long deadline) {
        lock();
        try {
            drainPending();
            List<ScheduledTask<?>> removed = order.removeIf(t -> t.time - deadline > 0);
            if (isShutDown() && isEmpty()) {
                wakeAll();
            }
            return removed;
        } finally {
            unlock();
        }
    }

    /**
     * Stops the queue: takers return null from now on.
     *
     * @return the tasks that were still queued, in due order
     */
    List<ScheduledTask<?>> stop() {
        lock();
        try {
            closeStaging();
            drainPending();
            stopped = true;
            List<ScheduledTask<?>> drained = new ArrayList<>(order.size());
            for (ScheduledTask<?> t; (t = claimReady()) != null; ) {
                drained.add(t); // due before anything else
            }
            ready = null;
            order.drainTo(drained);
            wakeAll();
            return drained;
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Figures

    /**
     * Returns the number of queued tasks, counting those still being handed over and not those
     * whose removal is pending or which were cancelled in a batch. Never takes the lock and never
     * moves a task: it adds up what the last holder of the lock published and what the stripes and
     * the batch hold now, consistently unless the lock is held for long (see QueueFigures); then
     * the value may be stale by the holder's moves. A submitter sees its task counted at once, and
     * a canceller sees it gone.
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
        lock();
        try {
            drainPending();
            ReadyBatch b = ready;
            return !isEmpty() || (b != null && b.remaining() > 0);
        } finally {
            unlock();
        }
    }

    /**
     * Whether a waiting task is due at the ticker's reading now, its due time included (where
     * {@link #overdueNanos()} reports 0). Exact, under the lock; for a manual ticker's wait for
     * what came due, not for gauges.
     */
    boolean hasDueTask() {
        lock();
        try {
            drainPending();
            long now = ticker.read();
            order.advance(now);
            ReadyBatch b = ready;
            if (b != null && b.remaining() > 0) {
                return true; // unclaimed tasks of a batch were due when it was taken
            }
            ScheduledTask<?> first = order.first();
            return first != null && first.time - now <= 0;
        } finally {
            unlock();
        }
    }

    /** Returns the thread currently designated leader; for tests. */
    public @Nullable Thread leader() {
        lock();
        try {
            Waiter l = leader;
            return l == null ? null : l.thread;
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // State; all under lock.

    /**
     * Whether shutdown() or stop() has run: set under the lock, before the stripes are closed, and
     * never cleared. The CLOSED marker on each stripe is what rejects a producer.
     */
    private boolean isShutDown() {
        return closed;
    }

    private boolean isEmpty() {
        return order.isEmpty();
    }

    @Override
    public String toString() {
        return "LeaderFollowerDelayQueue[size = " + size() + "]";
    }
}
