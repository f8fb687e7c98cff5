package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.Ticker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The queue every worker of one scheduler takes its tasks from: a min-heap ordered by due time,
 * consumed with the leader-follower protocol.
 *
 * <p>This class is thread-safe; all state is guarded by one lock.
 */
public final class LeaderFollowerDelayQueue {

    /*
     * Design overview.
     *
     * 1. The heap. A binary min-heap in an array, ordered by (time, sequence): due time first, then
     *    submission order, so equal times run first in, first out. Every task records its own index
     *    in the array (ScheduledTask.heapIndex), which turns removal of an arbitrary task, the
     *    common case when timeouts are cancelled, from a linear search into O(log n) sift work. A
     *    removed or taken task gets index -1 and its array slot is cleared at once, so the queue
     *    never retains a task it no longer holds.
     *
     * 2. Leader-follower. Any number of workers call take(). At most one of them, the leader, waits
     *    with a timeout: the time until the head is due. The others, the followers, wait without a
     *    timeout and cost nothing. When the leader leaves with a task, it signals one follower,
     *    which becomes the next leader; so however many tasks are pending, there is at most one
     *    timed sleeper, and no thread wakes up unless a task is due or the head changed. This is
     *    the protocol of java.util.concurrent.DelayQueue, described in the Javadoc of its leader
     *    field (after Schmidt and Pyarali's Leader/Followers pattern).
     *
     * 3. New heads. A task inserted at the head is due before the leader's wake-up target. The
     *    inserter then clears the leader field and signals a waiter: whoever wakes up (the old
     *    leader or a follower) recomputes its wait for the new head. A task inserted anywhere else
     *    wakes nobody.
     *
     * 4. Shutdown lives here too, under the same lock, so that "accept a task" and "stop accepting
     *    tasks" are atomic with respect to each other: after shutdown() no offer() succeeds, and
     *    take() returns null once there is nothing left to run, which is how workers learn to exit.
     */

    private static final int INITIAL_CAPACITY = 16;

    private final ReentrantLock lock = new ReentrantLock();

    /**
     * Signalled when the head changes or a waiter should re-examine the queue: a new head was
     * inserted, the leader left with a task and hands leadership on, or the queue shut down.
     */
    private final Condition available = lock.newCondition();

    private final Ticker ticker;

    /**
     * Whether the leader sleeps with a timeout. False for a manual ticker, whose time moves only
     * when it is advanced: then the leader sleeps until {@link #timeAdvanced()} wakes it.
     */
    private final boolean timedWaits;

    /** The heap. Slots at index {@code size} and above are always null. Guarded by lock. */
    private ScheduledTask<?>[] heap = new ScheduledTask<?>[INITIAL_CAPACITY];

    /**
     * Number of tasks in the heap. Written under lock; volatile so that gauges can read it without
     * taking the lock.
     */
    private volatile int size;

    /** Next sequence number; assigned under lock, so equal times keep the order tasks entered. */
    private long sequencer;

    /**
     * The thread designated to wait for the task at the head of the queue, or null when there is
     * none. Guarded by lock.
     *
     * <p>Only the leader waits with a timeout (the time until the head is due); every other taker
     * waits without one. A thread that finds the leader field empty and the head not yet due takes
     * the role and sleeps until the head is due. On its way out of take() a thread whose departure
     * left no leader while tasks remain signals one waiter, which takes the role over; so when a
     * leader returns with a task, exactly one follower wakes up.
     *
     * <p>Leadership can be lost: whenever a new task becomes the head, offer() clears this field
     * and signals a waiter, because the leader's timeout is now too long. The old leader, when it
     * wakes, finds itself no longer leader and competes again like any other waiter. A thread may
     * therefore only clear this field if it still holds the role.
     */
    private @Nullable Thread leader;

    /** Whether no new task is accepted. Guarded by lock. */
    private boolean shutdown;

    /** Whether take() returns null at once, even with tasks left (shutdownNow). Guarded by lock. */
    private boolean stopped;

    public LeaderFollowerDelayQueue(Ticker ticker, boolean timedWaits) {
        this.ticker = ticker;
        this.timedWaits = timedWaits;
    }

    /**
     * Inserts a new task unless the queue is shut down.
     *
     * @return false if the queue no longer accepts tasks
     */
    public boolean offer(ScheduledTask<?> task) {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            if (shutdown) {
                return false;
            }
            insert(task);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Puts a repeating task back for its next execution.
     *
     * @param acceptAfterShutdown whether to accept it after shutdown (but never after stop)
     * @return false if the task was not accepted
     */
    boolean requeue(ScheduledTask<?> task, boolean acceptAfterShutdown) {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            if (stopped || (shutdown && !acceptAfterShutdown)) {
                return false;
            }
            insert(task);
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void insert(ScheduledTask<?> task) {
        task.sequence = sequencer++;
        int i = size;
        if (i >= heap.length) {
            grow();
        }
        size = i + 1;
        siftUp(i, task);
        if (heap[0] == task) {
            // The new head is due before the leader's target: whoever wakes re-evaluates.
            leader = null;
            available.signal();
        }
    }

    /**
     * Removes a task if it is queued. Takes O(log n).
     *
     * @return whether the task was in the queue
     */
    public boolean remove(ScheduledTask<?> task) {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            int i = task.heapIndex;
            if (i < 0 || i >= size || heap[i] != task) {
                return false;
            }
            removeAt(i);
            if (shutdown && size == 0) {
                available.signalAll(); // the last task is gone: idle workers may exit now
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the next due task, following the leader-follower protocol.
     *
     * @return the due task, removed from the queue; or null when the worker should exit: the queue
     *     was stopped, or it is shut down and empty
     */
    public @Nullable ScheduledTask<?> take() {
        final ReentrantLock lock = this.lock;
        boolean interrupted = false;
        lock.lock();
        try {
            for (; ; ) {
                if (stopped) {
                    return null;
                }
                ScheduledTask<?> first = heap[0];
                if (first == null) {
                    if (shutdown) {
                        return null;
                    }
                    available.awaitUninterruptibly();
                    continue;
                }
                long delay = first.time - ticker.read();
                if (delay <= 0L) {
                    return poll();
                }
                first = null; // don't retain a reference while waiting: it may be cancelled
                if (leader != null) {
                    available.awaitUninterruptibly();
                } else {
                    Thread thisThread = Thread.currentThread();
                    leader = thisThread;
                    try {
                        interrupted |= awaitAsLeader(delay);
                    } finally {
                        if (leader == thisThread) {
                            leader = null;
                        }
                    }
                }
            }
        } finally {
            if (leader == null && heap[0] != null) {
                available.signal(); // hand leadership on
            } else if (shutdown && size == 0) {
                available.signalAll(); // let idle workers see that there is nothing left
            }
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Sleeps until the head is due or a signal arrives.
     *
     * @return whether the sleep was cut short by an interrupt
     */
    private boolean awaitAsLeader(long delayNanos) {
        // Workers are stopped through the queue's state, not through interrupts; an interrupt that
        // arrives here is a late cancel(true) aimed at a task this thread ran before. Re-asserting
        // it at once would make every later wait fail at once, a busy loop; so the caller restores
        // it only when it leaves take().
        try {
            if (timedWaits) {
                available.awaitNanos(delayNanos);
            } else {
                available.await();
            }
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    private ScheduledTask<?> poll() {
        ScheduledTask<?> first = heap[0];
        removeAt(0);
        return first;
    }

    /** Wakes a waiter so that it re-reads the ticker: used when a manual ticker moved. */
    void timeAdvanced() {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            leader = null;
            available.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops accepting tasks and removes those that must not run after shutdown.
     *
     * @return the removed tasks, for the caller to cancel outside the lock
     */
    List<ScheduledTask<?>> shutdown(boolean keepDelayed, boolean keepRepeating) {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            shutdown = true;
            List<ScheduledTask<?>> removed = new ArrayList<>();
            if (!keepDelayed || !keepRepeating) {
                long now = ticker.read();
                // Walk backwards: removing index i only moves elements from the end into slot i.
                for (int i = size - 1; i >= 0; i--) {
                    if (i >= size) {
                        continue;
                    }
                    ScheduledTask<?> t = heap[i];
                    boolean drop = t.isRepeating() ? !keepRepeating : !keepDelayed && t.time - now > 0;
                    if (drop) {
                        removeAt(i);
                        removed.add(t);
                    }
                }
            }
            available.signalAll();
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the queue: takers return null from now on.
     *
     * @return the tasks that were still queued, in due order
     */
    List<ScheduledTask<?>> stop() {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            shutdown = true;
            stopped = true;
            List<ScheduledTask<?>> drained = new ArrayList<>(size);
            while (size > 0) {
                drained.add(poll());
            }
            available.signalAll();
            return drained;
        } finally {
            lock.unlock();
        }
    }

    /** Returns the number of queued tasks. */
    public int size() {
        return size;
    }

    /**
     * Returns how long the most overdue queued task is past its due time, or 0 when none is due.
     */
    long overdueNanos() {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            ScheduledTask<?> first = heap[0];
            return first == null ? 0L : Math.max(0L, ticker.read() - first.time);
        } finally {
            lock.unlock();
        }
    }

    /** Returns the thread currently designated leader; for tests. */
    public @Nullable Thread leader() {
        final ReentrantLock lock = this.lock;
        lock.lock();
        try {
            return leader;
        } finally {
            lock.unlock();
        }
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
}
