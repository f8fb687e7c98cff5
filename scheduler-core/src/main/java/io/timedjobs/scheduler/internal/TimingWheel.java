package io.timedjobs.scheduler.internal;

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
 * start, its move time), {@link #advance} sorts its tasks once onto the end of the sorted run.
 * Each task records its index in its bucket (a wheel {@link QueuePosition}).
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
     * Every task of a bucket numbered up to this one has moved out (or never came in: the current
     * bucket and the next one go to the heap). Only grows.
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
     * Adds a task whose bucket has not moved yet and is within reach.
     *
     * @return false if the task belongs in the heap instead: due within the next bucket, beyond
     *     the wheel's reach, or its bucket too full to encode one more index
     */
    boolean add(ScheduledTask<?> task) {
        long bucket = bucketOf(task.time);
        if (bucket <= flushedBucket || bucket - flushedBucket >= SIZE) {
            return false;
        }
        int slot = (int) bucket & MASK;
        int n = bucketSize[slot];
        if (n >= QueuePosition.MAX_WHEEL_INDEX) {
            return false;
        }
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
        return true;
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
     * Moves the buckets that are about to come due at {@code now}: sorted onto the end of the run
     * when they all come after it (the case for buckets moved in order), otherwise into the heap.
     */
    void advance(long now, TaskHeap heap, SortedRun run) {
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
            for (int slot = 0; slot < SIZE && count > 0; slot++) {
                flushSlot(slot, true, heap, run);
            }
            return;
        }
        for (long b = from + 1; b <= target && count > 0; b++) {
            flushSlot((int) b & MASK, false, heap, run);
        }
    }

    /** Moves every task into the heap, for shutdown's sweeps. */
    void flushAll(TaskHeap heap, SortedRun run) {
        for (int slot = 0; slot < SIZE && count > 0; slot++) {
            flushSlot(slot, true, heap, run);
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
    private long bucketOf(long time) {
        return (time - origin) >> SHIFT;
    }

    /** Returns when a bucket's tasks move out: one bucket before its own start. */
    private long moveTime(long bucket) {
        return origin + ((bucket - 1) << SHIFT);
    }

    private void emptied(int slot, ScheduledTask<?>[] tasks) {
        occupied[slot >>> 6] &= ~(1L << slot);
        if (tasks.length > KEPT_BUCKET_CAPACITY) {
            buckets[slot] = null;
        }
    }

    private void flushSlot(int slot, boolean toHeap, TaskHeap heap, SortedRun run) {
        int n = bucketSize[slot];
        if (n == 0) {
            return;
        }
        ScheduledTask<?>[] tasks = buckets[slot];
        bucketSize[slot] = 0;
        count -= n;
        earliestKnown = false;
        toHeap |= run.size() + n >= QueuePosition.MAX_RUN_POSITION; // run positions must stay encodable
        if (!toHeap) {
            sortBucket(tasks, n);
            ScheduledTask<?> last = run.last();
            toHeap = last != null && !ScheduledTask.isBefore(last, tasks[0]);
        }
        if (toHeap) {
            for (int i = 0; i < n; i++) {
                ScheduledTask<?> t = tasks[i];
                tasks[i] = null;
                heap.add(t);
            }
        } else {
            run.append(tasks, n);
        }
        emptied(slot, tasks);
    }

    /**
     * Sorts a bucket's tasks into the queue's order. Each task is read once, to make a key of its
     * offset in the bucket (under 2^28 ns) and its index; the keys are sorted as plain longs, and
     * only tasks with the very same time are compared again, by sequence. A comparator sort would
     * read two tasks per comparison, scattered in memory, for n log n comparisons while the lock is
     * held and due tasks wait.
     */
    private void sortBucket(ScheduledTask<?>[] tasks, int n) {
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
