package io.timedjobs.scheduler;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Not thread-safe: touched only under the queue's lock, except {@link #attentionTime}, a pure
 * function of final fields that any thread may call. A coarse timing wheel for tasks due more than
 * a bucket or so ahead (timeouts, mostly, which are often cancelled before they come due): an
 * array of buckets, each holding the tasks due within one span of 2^28 ns (about 268 ms), 16384
 * buckets reaching about 73 minutes ahead. Adding one is an append to its bucket and removing one
 * a swap with the bucket's last task, both O(1) and without touching the heap's cache lines.
 *
 * <p>Buckets are numbered from the origin, a ticker reading; differences keep the numbers right
 * across the ticker's wrap-around. When a bucket is about to come due (one bucket before its own
 * start, its move time), {@link #advance} hands its tasks to a {@link Sink}: the due order, which
 * decides where they go next. The wheel decides nothing of the kind: whether a task comes in at
 * all is the due order's call too, asked with {@link #holds} and {@link #sizeOf}. Each task
 * records its index in its bucket (a wheel {@link QueuePosition}).
 */
final class TimingWheel {

    /** Each bucket spans 2^SHIFT nanoseconds (about 268 ms). */
    static final int SHIFT = 28;

    /** Number of buckets: the wheel reaches about 73 minutes ahead. */
    static final int SIZE = 1 << 14;

    private static final int MASK = SIZE - 1;

    /** Buckets whose arrays grew beyond this are freed when emptied, so a burst leaves no waste. */
    private static final int KEPT_BUCKET_CAPACITY = 16;

    /** The queue's order, for sorting tasks of equal times. */
    private static final Comparator<ScheduledTask<?>> DUE_ORDER =
            (a, b) -> a == b ? 0 : ScheduledTask.isBefore(a, b) ? -1 : 1;

    private final long origin;

    /**
     * Slot {@code b & MASK} holds the tasks of absolute bucket {@code b}, for {@code flushedBucket <
     * b < flushedBucket + SIZE}.
     */
    private final ScheduledTask<?>[][] buckets = new ScheduledTask<?>[SIZE][];

    private final int[] bucketSize = new int[SIZE];

    /** One bit per slot, set while the slot holds tasks: finds the next bucket in a few reads. */
    private final long[] occupied = new long[SIZE / 64];

    private int count;

    /**
     * Every task of a bucket numbered up to this one has moved out (or never came in: the wheel
     * does not hold the current bucket and the next one). Only grows.
     */
    private long flushedBucket = 1L;

    /**
     * A lower bound of the due times in the wheel, for the lateness figure: exact when found by
     * scanning the first occupied bucket, lowered by each insert, and left in place when a task
     * leaves. It is forgotten, and found again, only when the wheel advances, at most once a bucket:
     * forgetting it whenever the earliest task left would rescan a bucket at every release of the
     * lock while timeouts are cancelled in the order they were set. So after removals it may lie
     * below every remaining task, and the lateness figure reads high, but only while no worker has
     * advanced the wheel since its bucket's move time: when the pool cannot keep up anyway.
     */
    private long earliest;

    private boolean earliestKnown;

    /** @param origin a ticker reading; buckets are numbered from it */
    TimingWheel(long origin) {
        this.origin = origin;
    }

    /** Returns the number of tasks in the wheel. */
    int size() {
        return count;
    }

    /**
     * Returns when a task due at {@code time} needs a worker's attention if it is in the wheel:
     * its bucket's move time, never later than the time itself. Any thread.
     */
    long attentionTime(long time) {
        return moveTime(bucketOf(time));
    }

    /**
     * Whether the wheel can take tasks of an absolute bucket: one that has not moved yet (the
     * current bucket and the next one have) and is within reach.
     */
    boolean holds(long bucket) {
        return bucket > flushedBucket && bucket - flushedBucket < SIZE;
    }

    /** Returns the number of tasks in a bucket that {@link #holds} says the wheel can take. */
    int sizeOf(long bucket) {
        return bucketSize[(int) bucket & MASK];
    }

    /** Adds a task to its bucket, {@code bucketOf(task.time)}, which the wheel {@link #holds}. */
    void add(ScheduledTask<?> task, long bucket) {
        int slot = (int) bucket & MASK;
        int n = bucketSize[slot];
        ScheduledTask<?>[] tasks = buckets[slot];
        if (tasks == null) {
            buckets[slot] = tasks = new ScheduledTask<?>[4];
        } else if (n == tasks.length) {
            buckets[slot] = tasks = Arrays.copyOf(tasks, n + (n >> 1));
        }
        tasks[n] = task;
        task.queuePosition = QueuePosition.wheel(n);
        bucketSize[slot] = n + 1;
        if (n == 0) {
            occupied[slot >>> 6] |= 1L << slot;
        }
        if (count++ == 0) {
            earliest = task.time;
            earliestKnown = true;
        } else if (task.time - earliest < 0) {
            earliest = task.time; // a lower bound too while not known: forgotten all the same
        }
    }

    /** Removes a task by the index it records; false if it is not in this wheel. */
    boolean remove(ScheduledTask<?> task) {
        int p = task.queuePosition;
        if (!QueuePosition.inWheel(p)) {
            return false;
        }
        int index = QueuePosition.wheelIndex(p);
        int slot = (int) bucketOf(task.time) & MASK;
        ScheduledTask<?>[] tasks = buckets[slot];
        int last = bucketSize[slot] - 1;
        if (tasks == null || index > last || tasks[index] != task) {
            return false;
        }
        ScheduledTask<?> moved = tasks[last];
        tasks[last] = null;
        if (index != last) {
            tasks[index] = moved;
            moved.queuePosition = QueuePosition.wheel(index);
        }
        task.queuePosition = QueuePosition.NONE;
        bucketSize[slot] = last;
        count--; // earliest stays a lower bound: see there
        if (last == 0) {
            emptied(slot, tasks);
        }
        return true;
    }

    /**
     * Where the tasks of a bucket go as it moves out: the due order, which decides where they live
     * next. It takes every task out of the array, leaving its slots null.
     */
    interface Sink {
        /**
         * @param inOrder whether buckets come in time order, each after the one before: so that a
         *     sorted bucket may go after the tasks of the one before
         */
        void moveOut(ScheduledTask<?>[] tasks, int n, boolean inOrder);
    }

    /** Hands the buckets that are about to come due at {@code now} to {@code sink}, in time order. */
    void advance(long now, Sink sink) {
        long target = bucketOf(now) + 1;
        long from = flushedBucket;
        if (target <= from) {
            return;
        }
        flushedBucket = target;
        if (count == 0) {
            return;
        }
        earliestKnown = false;
        if (target - from >= SIZE) {
            flushAll(sink); // a whole turn or more: slot order is no longer time order
            return;
        }
        for (long b = from + 1; b <= target && count > 0; b++) {
            moveOut((int) b & MASK, true, sink);
        }
    }

    /** Hands every task to {@code sink}, bucket by bucket in no time order; for shutdown's sweeps. */
    void flushAll(Sink sink) {
        for (int slot = 0; slot < SIZE && count > 0; slot++) {
            moveOut(slot, false, sink);
        }
    }

    /** Returns the move time of the first occupied bucket. Called only with {@link #size()} above 0. */
    long nextMoveTime() {
        return moveTime(nextOccupiedBucket());
    }

    /**
     * Returns a lower bound of the due times in the wheel, exact unless tasks left since the wheel
     * last advanced (see {@link #earliest}). Called only with {@link #size()} above 0.
     */
    long earliest() {
        if (!earliestKnown) {
            int slot = (int) nextOccupiedBucket() & MASK;
            ScheduledTask<?>[] tasks = buckets[slot];
            long min = tasks[0].time;
            for (int i = 1, n = bucketSize[slot]; i < n; i++) {
                if (tasks[i].time - min < 0) {
                    min = tasks[i].time;
                }
            }
            earliest = min;
            earliestKnown = true;
        }
        return earliest;
    }

    /** Returns the absolute bucket of a ticker time; differences keep it right across wrap-around. */
    long bucketOf(long time) {
        return (time - origin) >> SHIFT;
    }

    /** Returns when a bucket's tasks move out: one bucket before its own start. */
    long moveTime(long bucket) {
        return origin + ((bucket - 1) << SHIFT);
    }

    private void emptied(int slot, ScheduledTask<?>[] tasks) {
        occupied[slot >>> 6] &= ~(1L << slot);
        if (tasks.length > KEPT_BUCKET_CAPACITY) {
            buckets[slot] = null;
        }
    }

    private void moveOut(int slot, boolean inOrder, Sink sink) {
        int n = bucketSize[slot];
        if (n == 0) {
            return;
        }
        ScheduledTask<?>[] tasks = buckets[slot];
        bucketSize[slot] = 0;
        count -= n;
        earliestKnown = false;
        sink.moveOut(tasks, n, inOrder);
        emptied(slot, tasks);
    }

    /**
     * Sorts a bucket's tasks into the queue's order. Each task is read once, to make a key of its
     * offset in the bucket (under 2^28 ns) and its index; the keys are sorted as plain longs, and
     * only tasks with the very same time are compared again, by sequence. A comparator sort would
     * read two tasks per comparison, scattered in memory, for n log n comparisons while the lock is
     * held and due tasks wait.
     */
    void sortBucket(ScheduledTask<?>[] tasks, int n) {
        long start = origin + (bucketOf(tasks[0].time) << SHIFT);
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = ((tasks[i].time - start) << 32) | i;
        }
        Arrays.sort(keys);
        ScheduledTask<?>[] sorted = new ScheduledTask<?>[n];
        for (int j = 0; j < n; j++) {
            sorted[j] = tasks[(int) keys[j]];
        }
        for (int from = 0; from < n; ) {
            int to = from + 1;
            while (to < n && keys[to] >>> 32 == keys[from] >>> 32) {
                to++;
            }
            if (to - from > 1) {
                Arrays.sort(sorted, from, to, DUE_ORDER); // equal times: first in, first out
            }
            from = to;
        }
        System.arraycopy(sorted, 0, tasks, 0, n);
    }

    /** Returns the first occupied bucket after flushedBucket. Called only with count above 0. */
    private long nextOccupiedBucket() {
        long first = flushedBucket + 1;
        int start = (int) first & MASK;
        int words = occupied.length;
        int word = start >>> 6;
        long bits = occupied[word] & (-1L << start); // slots at or after start in its word
        for (int scanned = 0; scanned <= words; scanned++) {
            if (bits != 0) {
                int slot = (word << 6) + Long.numberOfTrailingZeros(bits);
                return first + ((slot - start) & MASK);
            }
            word = (word + 1) % words;
            bits = occupied[word];
        }
        throw new IllegalStateException("the wheel holds " + count + " tasks but no bucket is occupied");
    }
}
