package io.timedjobs.scheduler;

import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: touched only under the queue's lock. Tasks moved out of the timing wheel,
 * sorted in due order, in {@code run[head..tail)}: a bucket's tasks are sorted once as they move
 * and then leave from the front in O(1), where the heap would have paid a sift on the way in and
 * another on the way out. Buckets move in time order, so appending keeps the run sorted.
 *
 * <p>A removed task leaves a null; the slots at head and tail - 1 are never null unless the run
 * is empty. Each task records its position (a run {@link QueuePosition}), so removal is O(1).
 */
final class SortedRun {

    private static final int INITIAL_CAPACITY = 16;

    /** A run whose array grew beyond this is given a small one when it empties. */
    private static final int KEPT_CAPACITY = 1024;

    private ScheduledTask<?>[] run = new ScheduledTask<?>[INITIAL_CAPACITY];

    private int head;

    private int tail;

    private int count;

    /** Returns the number of tasks in the run. */
    int size() {
        return count;
    }

    /** Returns the task due first, or null when the run is empty. */
    @Nullable
    ScheduledTask<?> first() {
        return head < tail ? run[head] : null;
    }

    /** Returns the task due last, or null when the run is empty. */
    @Nullable
    ScheduledTask<?> last() {
        return head < tail ? run[tail - 1] : null;
    }

    /**
     * Appends n tasks, sorted and all due after {@link #last()}, and clears them from the array.
     * Positions stay below {@link QueuePosition#MAX_RUN_POSITION} while the run holds fewer tasks.
     */
    void append(ScheduledTask<?>[] tasks, int n) {
        int live = tail - head;
        if (tail + n > run.length) {
            // Compact what is left to the front, into a larger array if need be; gaps go.
            ScheduledTask<?>[] old = run;
            ScheduledTask<?>[] to = live + n <= old.length
                    ? old
                    : new ScheduledTask<?>[Math.max(live + n, old.length + (old.length >> 1))];
            int k = 0;
            for (int i = head; i < tail; i++) {
                ScheduledTask<?> t = old[i];
                old[i] = null;
                if (t != null) {
                    to[k] = t;
                    t.queuePosition = QueuePosition.run(k);
                    k++;
                }
            }
            run = to;
            head = 0;
            tail = k;
        }
        ScheduledTask<?>[] run = this.run;
        int k = tail;
        for (int i = 0; i < n; i++, k++) {
            ScheduledTask<?> t = tasks[i];
            tasks[i] = null;
            run[k] = t;
            t.queuePosition = QueuePosition.run(k);
        }
        tail = k;
        count += n;
    }

    /** Removes and returns the task due first; the run must not be empty. */
    ScheduledTask<?> poll() {
        ScheduledTask<?> t = run[head];
        removeAt(t, head);
        return t;
    }

    /** Removes a task by the position it records; false if it is not in this run. */
    boolean remove(ScheduledTask<?> task) {
        int p = task.queuePosition;
        return QueuePosition.inRun(p) && removeAt(task, QueuePosition.runPosition(p));
    }

    private boolean removeAt(ScheduledTask<?> task, int i) {
        if (i < head || i >= tail || run[i] != task) {
            return false;
        }
        run[i] = null;
        task.queuePosition = QueuePosition.NONE;
        int left = --count;
        if (left == 0) {
            head = tail = 0;
            if (run.length > KEPT_CAPACITY) {
                run = new ScheduledTask<?>[INITIAL_CAPACITY];
            }
        } else if (i == head) {
            // Keep the head on a task: skip the gaps that removed tasks left behind it.
            int h = i + 1;
            while (run[h] == null) {
                h++;
            }
            head = h;
        } else if (i == tail - 1) {
            // Keep the tail on a task too, for the order check before an append.
            int t = i;
            while (run[t - 1] == null) {
                t--;
            }
            tail = t;
        }
        return true;
    }
}
