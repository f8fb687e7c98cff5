package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The queue every worker of one scheduler takes its tasks from: a min-heap ordered by due time,
 * consumed with the leader-follower protocol.
 *
 * <p>This class is thread-safe. The heap and the waiters are guarded by one lock; new tasks reach
 * the heap through a lock-free staging stack.
 */
public final class LeaderFollowerDelayQueue {

    /*
     * Design overview.
     *
     * 1. The heap. A binary min-heap in an array, ordered by (time, sequence): due time first, then
     *    the order tasks entered, so equal times run first in, first out. Every task records its own
     *    index in the array (ScheduledTask.heapIndex), which turns removal of an arbitrary task, the
     *    common case when timeouts are cancelled, from a linear search into O(log n) sift work. A
     *    removed or taken task gets index -1 and its slot is cleared at once, so the queue never
     *    retains a task it no longer holds.
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
     * 3. Staging. Submitting threads do not queue up on the lock. offer() inserts directly when
     *    the lock is free; when it is not, it pushes the task onto a Treiber stack (one CAS) and
     *    then only tries the lock again: whoever holds the lock drains the
     *    stack into the heap before letting go, and unlock() looks at the stack again after
     *    releasing, taking the lock back if something arrived meanwhile. So a staged task is always
     *    drained by a thread that holds or is about to hold the lock, and two producers never park
     *    on each other: one inserts both tasks while the other goes on. The stack is reversed when
     *    drained, which keeps submission order for equal due times. Cancellation works the same
     *    way: a canceller that finds the lock busy pushes a small removal record on a second stack
     *    and goes on; the holder removes the task before it lets go.
     *
     * 4. New heads. A drained task that lands at the head is due before the leader's wake-up time.
     *    The drainer then unparks the leader (or, with no leader, one follower) so that it sleeps
     *    again for the new head. A task that lands anywhere else wakes nobody.
     *
     * 5. The wheel. Tasks due more than a bucket or so ahead (timeouts, mostly, which are often
     *    cancelled before they come due) do not enter the heap at first. They go into a coarse
     *    timing wheel: an array of buckets, each holding the tasks due within one span of 2^28 ns
     *    (about 268 ms), 16384 buckets covering about 73 minutes. Adding one is an append to its
     *    bucket and cancelling one a swap with the bucket's last element, both O(1) and without
     *    touching the heap's cache lines. When a bucket is about to come due (one bucket ahead of
     *    "now"), every task in it moves into the heap, whose order then decides. The leader's
     *    wake-up time is the earlier of the head's due time and the next bucket's move time.
     *    Tasks beyond the wheel's reach go straight to the heap. Order is unaffected: sequence
     *    numbers are given as tasks enter the queue, not as they enter the heap.
     *
     * 6. Shutdown. shutdown() replaces the staging stack with a SHUT_DOWN marker in one CAS. Tasks
     *    pushed before the marker were accepted and are moved to the heap with it; a push that
     *    finds the marker fails, and the submitter rejects the task. So "accept" and "shut down"
     *    are atomic to each other without producers ever taking the lock. take() returns null once
     *    the queue is shut down and empty, which is how workers learn to exit.
     */

    private static final int INITIAL_CAPACITY = 16;

    /** Each wheel bucket spans 2^WHEEL_SHIFT nanoseconds (about 268 ms). */
    private static final int WHEEL_SHIFT = 28;

    /** Number of buckets: the wheel reaches about 73 minutes ahead. */
    private static final int WHEEL_SIZE = 1 << 14;

    private static final int WHEEL_MASK = WHEEL_SIZE - 1;

    /** Buckets whose arrays grew beyond this are freed when emptied, so a burst leaves no waste. */
    private static final int KEPT_BUCKET_CAPACITY = 16;

    /** Head of the staging stack once the queue is shut down: nothing can be pushed on it. */
    private static final ScheduledTask<?> SHUT_DOWN = new ScheduledTask<>(null, "shut down", 0L);

    private final ReentrantLock lock = new ReentrantLock();

    private final Ticker ticker;

    /**
     * Whether the leader sleeps with a timeout. False for a manual ticker, whose time moves only
     * when it is advanced: then the leader sleeps until {@link #timeAdvanced()} wakes it.
     */
    private final boolean timedWaits;

    /**
     * Tasks offered but not yet in the heap, newest first, linked through {@link
     * ScheduledTask#nextStaged}; or {@link #SHUT_DOWN}. Pushed to without the lock; emptied only
     * under the lock.
     */
    private volatile @Nullable ScheduledTask<?> staged;

    /** The heap. Slots at index {@code size} and above are always null. Guarded by lock. */
    private ScheduledTask<?>[] heap = new ScheduledTask<?>[INITIAL_CAPACITY];

    /** Number of tasks in the heap. Written under lock; volatile so gauges can read it freely. */
    private volatile int size;

    /** Number of tasks on the staging stack, so that a submitter sees its task counted at once. */
    private final LongAdder stagedCount = new LongAdder();

    /**
     * Cancelled tasks whose removal waits for the lock holder, newest first. Pushed to without the
     * lock; emptied only under the lock.
     */
    private volatile @Nullable Removal removals;

    /** Number of removals on that stack, so that a canceller sees the queue shrink at once. */
    private final LongAdder pendingRemovals = new LongAdder();

    /** A removal handed over to the lock holder. */
    private static final class Removal {
        final ScheduledTask<?> task;

        @Nullable
        Removal next;

        Removal(ScheduledTask<?> task) {
            this.task = task;
        }
    }

    /** Ticker reading at construction; wheel buckets are numbered from it. */
    private final long origin;

    /**
     * The wheel: slot {@code b & WHEEL_MASK} holds the tasks of absolute bucket {@code b}, for
     * {@code flushedBucket < b < flushedBucket + WHEEL_SIZE}. Each task in it has heapIndex {@code
     * -2 - (its index in the slot's array)}. Guarded by lock.
     */
    private final ScheduledTask<?>[][] wheel = new ScheduledTask<?>[WHEEL_SIZE][];

    private final int[] bucketSize = new int[WHEEL_SIZE];

    /** One bit per slot, set while the slot holds tasks: finds the next bucket in a few reads. */
    private final long[] occupied = new long[WHEEL_SIZE / 64];

    /** Number of tasks in the wheel. Written under lock; volatile so gauges can read it freely. */
    private volatile int wheelCount;

    /**
     * Every task of a bucket numbered up to this one is in the heap; later ones are in the wheel.
     * Only grows. Guarded by lock.
     */
    private long flushedBucket;

    /** When the current leader will wake up on its own, in ticker time. Guarded by lock. */
    private long leaderWakeAt;

    /** Next sequence number; assigned under lock as tasks enter the queue. */
    private int sequencer;

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

    /** Whether take() returns null at once, even with tasks left (shutdownNow). Guarded by lock. */
    private boolean stopped;

    /** A worker as the queue sees it: the thread to park and unpark. */
    public static final class Waiter {
        final Thread thread;

        /** Whether it is registered in {@link #followers}. Guarded by the queue's lock. */
        boolean queued;

        public Waiter(Thread thread) {
            this.thread = thread;
        }
    }

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this.ticker = ticker;
        this.timedWaits = timedWaits;
        this.origin = ticker.read();
        this.flushedBucket = 1L; // the current bucket and the next one go to the heap
    }

    // ---------------------------------------------------------------------------------------------
    // Producers

    /**
     * Adds a new task unless the queue is shut down. Never blocks on the lock.
     *
     * @return false if the queue no longer accepts tasks
     */
    public boolean offer(ScheduledTask<?> task) {
        final ReentrantLock lock = this.lock;
        if (lock.tryLock()) {
            // Uncontended: insert directly, after whatever others staged before.
            try {
                drainPending();
                if (isShutDown()) {
                    return false;
                }
                insert(task);
                return true;
            } finally {
                unlock();
            }
        }
        for (; ; ) {
            ScheduledTask<?> head = staged;
            if (head == SHUT_DOWN) {
                return false;
            }
            task.nextStaged = head;
            if (STAGED.weakCompareAndSet(this, head, task)) {
                break;
            }
        }
        stagedCount.increment();
        if (lock.tryLock()) {
            drainPending();
            unlock();
        }
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
     * Removes a cancelled task from wherever it is queued: O(log n) in the heap, O(1) in the wheel.
     * Never blocks: when the lock is busy, the removal is handed to the lock holder on a stack of
     * its own, and the holder performs it before it lets go, as it does for staged tasks.
     */
    public void remove(ScheduledTask<?> task) {
        final ReentrantLock lock = this.lock;
        if (lock.tryLock()) {
            try {
                drainPending();
                removeLocked(task);
            } finally {
                unlock();
            }
            return;
        }
        Removal removal = new Removal(task);
        for (; ; ) {
            Removal head = removals;
            removal.next = head;
            if (REMOVALS.weakCompareAndSet(this, head, removal)) {
                break;
            }
        }
        pendingRemovals.increment();
        if (lock.tryLock()) {
            drainPending();
            unlock();
        }
    }

    private void removeLocked(ScheduledTask<?> task) {
        int i = task.heapIndex;
        if (i >= 0) {
            if (i >= size || heap[i] != task) {
                return;
            }
            removeAt(i);
        } else if (i <= -2) {
            if (!wheelRemove(task, -2 - i)) {
                return;
            }
        } else {
            return; // taken, never queued, or still staged (then drainStaged drops it)
        }
        if (isShutDown() && isEmpty()) {
            wakeAll(); // the last task is gone: idle workers may exit now
        }
    }

    /** Brings the heap up to date with what producers and cancellers handed over. Called under lock. */
    private void drainPending() {
        drainStaged(); // first: a task staged and then cancelled is dropped here
        if (removals != null) {
            Removal head = (Removal) REMOVALS.getAndSet(this, (Removal) null);
            int n = 0;
            for (Removal r = head; r != null; r = r.next) {
                removeLocked(r.task);
                n++;
            }
            pendingRemovals.add(-n);
        }
    }

    /** Moves staged tasks into the heap, in the order they were offered. Called under lock. */
    private void drainStaged() {
        ScheduledTask<?> head;
        do {
            head = staged;
            if (head == null || head == SHUT_DOWN) {
                return;
            }
        } while (!STAGED.weakCompareAndSet(this, head, (ScheduledTask<?>) null));
        insertChain(head);
    }

    /** Inserts a chain of staged tasks, newest first, oldest first. Called under lock. */
    private void insertChain(ScheduledTask<?> newestFirst) {
        ScheduledTask<?> oldestFirst = null;
        int count = 0;
        for (ScheduledTask<?> t = newestFirst; t != null; ) {
            ScheduledTask<?> next = t.nextStaged;
            t.nextStaged = oldestFirst;
            oldestFirst = t;
            t = next;
            count++;
        }
        stagedCount.add(-count);
        for (ScheduledTask<?> t = oldestFirst; t != null; ) {
            ScheduledTask<?> next = t.nextStaged;
            t.nextStaged = null;
            if (t.isNew()) { // cancelled while staged: it never enters the heap
                insert(t);
            }
            t = next;
        }
    }

    /** Adds a task to the wheel or the heap and wakes whoever must re-plan. Called under lock. */
    private void insert(ScheduledTask<?> task) {
        boolean wasEmpty = size == 0 && wheelCount == 0;
        task.sequence = sequencer++;
        long bucket = bucketOf(task.time);
        long attention; // when a worker must look at this task: its due time, or its move time
        if (bucket <= flushedBucket || bucket - flushedBucket >= WHEEL_SIZE) {
            heapInsert(task);
            attention = task.time;
        } else {
            wheelInsert(task, bucket);
            attention = moveTime(bucket);
        }
        Waiter l = leader;
        if (l != null) {
            if (attention - leaderWakeAt < 0) {
                // Due before the leader would wake up: it must re-plan.
                leader = null;
                LockSupport.unpark(l.thread);
            }
        } else if (wasEmpty) {
            wakeFollower(); // nobody is waiting for anything yet
        }
        // Otherwise a worker is already on its way back into take() and will see the task.
    }

    private void heapInsert(ScheduledTask<?> task) {
        int i = size;
        if (i >= heap.length) {
            grow();
        }
        size = i + 1;
        siftUp(i, task);
    }

    /**
     * Takes the lock. Only workers and shutdown block here: producers and cancellers never do (see
     * offer and remove). No spinning: with more workers than cores, a spinner mostly burns the
     * time slice the lock holder needs.
     */
    private void lock() {
        lock.lock();
    }

    /**
     * Releases the lock, then takes it back to drain the staging and removal stacks if a producer
     * or a canceller pushed while it was held (that thread's tryLock failed, so it counts on the
     * holder). Every release of the lock goes through here.
     */
    private void unlock() {
        final ReentrantLock lock = this.lock;
        for (; ; ) {
            lock.unlock();
            ScheduledTask<?> head = staged;
            boolean stagedWaiting = head != null && head != SHUT_DOWN;
            if (!(stagedWaiting || removals != null) || !lock.tryLock()) {
                return;
            }
            drainPending();
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
    public @Nullable ScheduledTask<?> take(Waiter me) {
        boolean interrupted = false;
        lock();
        try {
            for (; ; ) {
                drainPending();
                if (stopped) {
                    return null;
                }
                long now = ticker.read();
                advanceWheel(now);
                ScheduledTask<?> first = heap[0];
                if (first == null && wheelCount == 0) {
                    if (isShutDown()) {
                        return null;
                    }
                    interrupted |= sleep(me, false, 0L);
                    continue;
                }
                long wakeAt;
                if (first != null) {
                    if (first.time - now <= 0L) {
                        return poll();
                    }
                    wakeAt = first.time;
                    first = null; // don't retain a reference while sleeping: it may be cancelled
                    if (wheelCount > 0) {
                        long move = moveTime(nextOccupiedBucket());
                        if (move - wakeAt < 0) {
                            wakeAt = move;
                        }
                    }
                } else {
                    wakeAt = moveTime(nextOccupiedBucket());
                }
                if (leader != null) {
                    interrupted |= sleep(me, false, 0L);
                } else {
                    leader = me;
                    leaderWakeAt = wakeAt;
                    try {
                        interrupted |= sleep(me, timedWaits, Math.max(1L, wakeAt - now));
                    } finally {
                        if (leader == me) {
                            leader = null;
                        }
                    }
                }
            }
        } finally {
            Waiter successor = null;
            if (leader == null && (heap[0] != null || wheelCount > 0)) {
                // Hand leadership on. The successor is woken after the lock is released: woken
                // before, it would only block on the lock and need a second wake-up.
                successor = followers.pollLast();
                if (successor != null) {
                    successor.queued = false;
                }
            } else if (isShutDown() && isEmpty()) {
                wakeAll(); // let idle workers see that there is nothing left
            }
            unlock();
            if (successor != null) {
                LockSupport.unpark(successor.thread);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Releases the lock, parks, and takes the lock back. A follower registers itself first; a
     * leader does not (the leader field names it).
     *
     * @return whether an interrupt was cleared; workers are stopped through the queue's state, so
     *     an interrupt here is a late cancel(true) aimed at a task this thread ran before, and it
     *     must not make park() return at once in a loop
     */
    private boolean sleep(Waiter me, boolean timed, long nanos) {
        boolean follower = me != leader;
        if (follower && !me.queued) {
            followers.addLast(me);
            me.queued = true;
        }
        boolean interrupted = Thread.interrupted();
        unlock();
        if (timed) {
            LockSupport.parkNanos(this, nanos);
        } else {
            LockSupport.park(this);
        }
        lock();
        if (me.queued) { // woken by something other than a waker: deregister, look again
            followers.remove(me);
            me.queued = false;
        }
        return interrupted;
    }

    private ScheduledTask<?> poll() {
        ScheduledTask<?> first = heap[0];
        removeAt(0);
        return first;
    }

    /** Wakes the follower that went to sleep last, if any. Called under lock. */
    private void wakeFollower() {
        Waiter w = followers.pollLast();
        if (w != null) {
            w.queued = false;
            LockSupport.unpark(w.thread);
        }
    }

    /** Wakes every sleeping worker. Called under lock. */
    private void wakeAll() {
        Waiter l = leader;
        if (l != null) {
            leader = null;
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
                leader = null;
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

    /** Closes the staging stack and moves what was on it into the heap. Called under lock. */
    private void closeStaging() {
        ScheduledTask<?> head;
        do {
            head = staged;
            if (head == SHUT_DOWN) {
                return;
            }
        } while (!STAGED.weakCompareAndSet(this, head, SHUT_DOWN));
        if (head != null) {
            insertChain(head);
        }
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
            flushWheel();
            List<ScheduledTask<?>> removed = new ArrayList<>();
            if (!keepDelayed || !keepRepeating) {
                long now = ticker.read();
                // Walk backwards: removing index i only moves elements from the end into slot i.
                for (int i = size - 1; i >= 0; i--) {
                    if (i >= size) {
                        continue;
                    }
                    ScheduledTask<?> t = heap[i];
                    boolean drop = t.isPeriodic() ? !keepRepeating : !keepDelayed && t.time - now > 0;
                    if (drop) {
                        removeAt(i);
                        removed.add(t);
                    }
                }
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
            flushWheel();
            List<ScheduledTask<?>> removed = new ArrayList<>();
            for (int i = size - 1; i >= 0; i--) {
                if (i >= size) {
                    continue;
                }
                ScheduledTask<?> t = heap[i];
                if (t.time - deadline > 0) {
                    removeAt(i);
                    removed.add(t);
                }
            }
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
            flushWheel();
            stopped = true;
            List<ScheduledTask<?>> drained = new ArrayList<>(size);
            while (size > 0) {
                drained.add(poll());
            }
            wakeAll();
            return drained;
        } finally {
            unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Figures

    /** Returns the number of queued tasks, counting those still being handed over. */
    public int size() {
        return size + wheelCount + (int) (stagedCount.sum() - pendingRemovals.sum());
    }

    /** Returns how long the most overdue queued task is past its due time, or 0 when none is due. */
    long overdueNanos() {
        lock();
        try {
            drainPending();
            long now = ticker.read();
            advanceWheel(now);
            ScheduledTask<?> first = heap[0];
            return first == null ? 0L : Math.max(0L, now - first.time);
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
    // Wheel maintenance; all under lock.

    /**
     * Whether shutdown() or stop() has run. The marker on the staging stack is the only record of
     * it: it is set under the lock and never removed, so under the lock this is stable.
     */
    private boolean isShutDown() {
        return staged == SHUT_DOWN;
    }

    private boolean isEmpty() {
        return size == 0 && wheelCount == 0;
    }

    /** Returns the absolute wheel bucket of a ticker time; differences keep it right across wrap-around. */
    private long bucketOf(long time) {
        return (time - origin) >> WHEEL_SHIFT;
    }

    /** Returns when a bucket's tasks move into the heap: one bucket before its own start. */
    private long moveTime(long bucket) {
        return origin + ((bucket - 1) << WHEEL_SHIFT);
    }

    private void wheelInsert(ScheduledTask<?> task, long bucket) {
        int slot = (int) bucket & WHEEL_MASK;
        ScheduledTask<?>[] tasks = wheel[slot];
        int n = bucketSize[slot];
        if (tasks == null) {
            wheel[slot] = tasks = new ScheduledTask<?>[4];
        } else if (n == tasks.length) {
            wheel[slot] = tasks = Arrays.copyOf(tasks, n + (n >> 1));
        }
        tasks[n] = task;
        task.heapIndex = -2 - n;
        bucketSize[slot] = n + 1;
        if (n == 0) {
            occupied[slot >>> 6] |= 1L << slot;
        }
        wheelCount++;
    }

    private boolean wheelRemove(ScheduledTask<?> task, int index) {
        int slot = (int) bucketOf(task.time) & WHEEL_MASK;
        ScheduledTask<?>[] tasks = wheel[slot];
        int last = bucketSize[slot] - 1;
        if (tasks == null || index > last || tasks[index] != task) {
            return false;
        }
        ScheduledTask<?> moved = tasks[last];
        tasks[last] = null;
        if (index != last) {
            tasks[index] = moved;
            moved.heapIndex = -2 - index;
        }
        task.heapIndex = -1;
        bucketSize[slot] = last;
        wheelCount--;
        if (last == 0) {
            emptied(slot, tasks);
        }
        return true;
    }

    private void emptied(int slot, ScheduledTask<?>[] tasks) {
        occupied[slot >>> 6] &= ~(1L << slot);
        if (tasks.length > KEPT_BUCKET_CAPACITY) {
            wheel[slot] = null;
        }
    }

    /** Moves every task of one slot into the heap. */
    private void flushSlot(int slot) {
        int n = bucketSize[slot];
        if (n == 0) {
            return;
        }
        ScheduledTask<?>[] tasks = wheel[slot];
        for (int i = 0; i < n; i++) {
            ScheduledTask<?> t = tasks[i];
            tasks[i] = null;
            heapInsert(t);
        }
        bucketSize[slot] = 0;
        wheelCount -= n;
        emptied(slot, tasks);
    }

    /** Moves the buckets that are about to come due into the heap. */
    private void advanceWheel(long now) {
        long target = bucketOf(now) + 1;
        long from = flushedBucket;
        if (target <= from) {
            return;
        }
        flushedBucket = target;
        if (wheelCount == 0) {
            return;
        }
        if (target - from >= WHEEL_SIZE) {
            for (int slot = 0; slot < WHEEL_SIZE && wheelCount > 0; slot++) {
                flushSlot(slot);
            }
            return;
        }
        for (long b = from + 1; b <= target && wheelCount > 0; b++) {
            flushSlot((int) b & WHEEL_MASK);
        }
    }

    /** Moves every task of the wheel into the heap, for shutdown's sweep. */
    private void flushWheel() {
        for (int slot = 0; slot < WHEEL_SIZE && wheelCount > 0; slot++) {
            flushSlot(slot);
        }
    }

    /** Returns the first occupied bucket after flushedBucket. Called only with wheelCount > 0. */
    private long nextOccupiedBucket() {
        long first = flushedBucket + 1;
        int start = (int) first & WHEEL_MASK;
        int words = occupied.length;
        int word = start >>> 6;
        long bits = occupied[word] & (-1L << start); // slots at or after start in its word
        for (int scanned = 0; scanned <= words; scanned++) {
            if (bits != 0) {
                int slot = (word << 6) + Long.numberOfTrailingZeros(bits);
                return first + ((slot - start) & WHEEL_MASK);
            }
            word = (word + 1) % words;
            bits = occupied[word];
        }
        throw new IllegalStateException("wheelCount is " + wheelCount + " but no bucket is occupied");
    }

    // ---------------------------------------------------------------------------------------------
    // Heap maintenance; all under lock.

    private void removeAt(int i) {
        ScheduledTask<?>[] heap = this.heap;
        heap[i].heapIndex = -1;
        int last = size - 1;
        size = last;
        ScheduledTask<?> moved = heap[last];
        heap[last] = null;
        if (i != last) {
            siftDown(i, moved);
            if (heap[i] == moved) {
                siftUp(i, moved);
            }
        }
    }

    private void siftUp(int k, ScheduledTask<?> task) {
        ScheduledTask<?>[] heap = this.heap;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            ScheduledTask<?> p = heap[parent];
            if (!ScheduledTask.isBefore(task, p)) {
                break;
            }
            heap[k] = p;
            p.heapIndex = k;
            k = parent;
        }
        heap[k] = task;
        task.heapIndex = k;
    }

    private void siftDown(int k, ScheduledTask<?> task) {
        ScheduledTask<?>[] heap = this.heap;
        int n = size;
        int half = n >>> 1;
        while (k < half) {
            int child = (k << 1) + 1;
            ScheduledTask<?> c = heap[child];
            int right = child + 1;
            if (right < n && ScheduledTask.isBefore(heap[right], c)) {
                c = heap[child = right];
            }
            if (!ScheduledTask.isBefore(c, task)) {
                break;
            }
            heap[k] = c;
            c.heapIndex = k;
            k = child;
        }
        heap[k] = task;
        task.heapIndex = k;
    }

    private void grow() {
        int oldCapacity = heap.length;
        int newCapacity = oldCapacity + (oldCapacity >> 1);
        if (newCapacity < 0) {
            throw new OutOfMemoryError("Too many scheduled tasks");
        }
        heap = Arrays.copyOf(heap, newCapacity);
    }

    @Override
    public String toString() {
        return "LeaderFollowerDelayQueue[size = " + size + "]";
    }

    private static final VarHandle STAGED;
    private static final VarHandle REMOVALS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STAGED = lookup.findVarHandle(LeaderFollowerDelayQueue.class, "staged", ScheduledTask.class);
            REMOVALS = lookup.findVarHandle(LeaderFollowerDelayQueue.class, "removals", Removal.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
