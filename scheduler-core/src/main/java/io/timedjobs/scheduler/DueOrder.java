package io.timedjobs.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: touched only under the queue's lock, except {@link #attentionTime}, a pure
 * function any thread may call. The queue's tasks in due order, held in three structures: the
 * {@link TimingWheel} for tasks due more than a bucket ahead, the {@link SortedRun} its buckets
 * move into, and the {@link TaskHeap} for the rest. This class alone decides where a task lives:
 * which structure takes it as it enters ({@link #add}) and as its wheel bucket moves out ({@link
 * #moveOut}), each structure's encoding limit included. It finds a task by its {@link
 * QueuePosition}, knows which task is due first, and numbers tasks as they enter, so that equal due
 * times leave first in, first out.
 */
final class DueOrder {

    private final TaskHeap heap = new TaskHeap();

    private final TimingWheel wheel;

    private final SortedRun run = new SortedRun();

    /** Where the wheel's buckets go as they move out. Made once, not per move. */
    private final TimingWheel.Sink moveOut = this::moveOut;

    /** Next sequence number; compared by difference, so it may wrap around. */
    private int sequencer;

    /** @param origin a ticker reading, from which the wheel numbers its buckets */
    DueOrder(long origin) {
        this.wheel = new TimingWheel(origin);
    }

    /**
     * Returns when a task due at {@code time} needs a worker's attention: its wheel bucket's move
     * time, never later than the time itself. Any thread.
     */
    long attentionTime(long time) {
        return wheel.attentionTime(time);
    }

    /**
     * Adds a task, numbering it after every task added before.
     *
     * @return when a worker must look at it: its due time, or its bucket's move time
     */
    long add(ScheduledTask<?> task) {
        task.sequence = sequencer++;
        // The wheel for a task due more than a bucket ahead and within its reach, while its index
        // in the bucket stays encodable; the heap for the rest.
        long bucket = wheel.bucketOf(task.time);
        if (wheel.holds(bucket) && wheel.sizeOf(bucket) < QueuePosition.MAX_WHEEL_INDEX) {
            wheel.add(task, bucket);
            return wheel.moveTime(bucket);
        }
        heap.add(task);
        return task.time;
    }

    /** Removes a task from whichever structure holds it; false if none does. */
    boolean remove(ScheduledTask<?> task) {
        int p = task.queuePosition;
        if (QueuePosition.inHeap(p)) {
            return heap.remove(task);
        } else if (QueuePosition.inRun(p)) {
            return run.remove(task);
        } else if (QueuePosition.inWheel(p)) {
            return wheel.remove(task);
        }
        return false;
    }

    /** Moves the wheel's buckets that are about to come due at {@code now} out (see moveOut). */
    void advance(long now) {
        wheel.advance(now, moveOut);
    }

    /**
     * Takes the tasks of a wheel bucket that moves out: sorted onto the end of the run when they
     * all come after it (the case for buckets moved in order) and the run's positions stay
     * encodable; otherwise into the heap.
     */
    private void moveOut(ScheduledTask<?>[] tasks, int n, boolean inOrder) {
        if (inOrder && run.size() + n < QueuePosition.MAX_RUN_POSITION) {
            wheel.sortBucket(tasks, n);
            ScheduledTask<?> last = run.last();
            if (last == null || ScheduledTask.isBefore(last, tasks[0])) {
                run.append(tasks, n);
                return;
            }
        }
        for (int i = 0; i < n; i++) {
            ScheduledTask<?> t = tasks[i];
            tasks[i] = null;
            heap.add(t);
        }
    }

    /**
     * Returns the task due first among those out of the wheel, or null; a task in the wheel needs
     * no attention before {@link #nextMoveTime()}.
     */
    @Nullable
    ScheduledTask<?> first() {
        ScheduledTask<?> h = heap.peek();
        ScheduledTask<?> r = run.first();
        if (r == null) {
            return h;
        }
        return h == null || ScheduledTask.isBefore(r, h) ? r : h;
    }

    /** Removes the task that {@link #first()} returned. */
    ScheduledTask<?> poll(ScheduledTask<?> first) {
        if (first == heap.peek()) {
            heap.removeAt(0);
        } else {
            run.poll();
        }
        return first;
    }

    /**
     * Moves the tasks due at {@code now}, up to {@link ReadyBatch#MAX_TASKS}, into a new batch (which
     * marks each with its slot); null when none is due. Called after the first due task was polled, so
     * a burst of due tasks costs the lock once per batch rather than once per task.
     */
    @Nullable
    ReadyBatch pollDueBatch(long now) {
        ScheduledTask<?> next = first();
        if (next == null || next.time - now > 0L) {
            return null;
        }
        ScheduledTask<?>[] tasks = new ScheduledTask<?>[ReadyBatch.MAX_TASKS];
        int n = 0;
        do {
            tasks[n++] = poll(next);
            next = first();
        } while (n < ReadyBatch.MAX_TASKS && next != null && next.time - now <= 0L);
        return new ReadyBatch(tasks, n);
    }

    int size() {
        return heap.size() + wheel.size() + run.size();
    }

    boolean isEmpty() {
        return size() == 0;
    }

    /**
     * Returns when a leader waiting for {@code first} (what {@link #first()} returned, not yet
     * due; or null) must wake up: at its due time, or at the wheel's next move if that is earlier.
     * Only when {@code first} is not null or the wheel holds tasks.
     */
    long wakeTime(@Nullable ScheduledTask<?> first) {
        if (first == null) {
            return wheel.nextMoveTime();
        }
        long wakeAt = first.time;
        if (wheel.size() > 0) {
            long move = wheel.nextMoveTime();
            if (move - wakeAt < 0) {
                wakeAt = move;
            }
        }
        return wakeAt;
    }

    /** Whether the wheel holds tasks: then {@link #nextMoveTime()} is defined. */
    boolean hasWheelTasks() {
        return wheel.size() > 0;
    }

    /** Returns the move time of the wheel's first occupied bucket; only with wheel tasks. */
    long nextMoveTime() {
        return wheel.nextMoveTime();
    }

    /**
     * Returns the earliest due time of all tasks, or a little earlier while tasks left the wheel
     * since it last moved on (see {@link TimingWheel#earliest()}); only when not empty.
     */
    long earliest() {
        ScheduledTask<?> first = first();
        if (wheel.size() == 0) {
            return first.time;
        }
        long inWheel = wheel.earliest();
        return first == null || inWheel - first.time < 0 ? inWheel : first.time;
    }

    /** Removes and returns every task that matches, in no particular order; for shutdown's sweeps. */
    List<ScheduledTask<?>> removeIf(Predicate<ScheduledTask<?>> filter) {
        flushIntoHeap();
        List<ScheduledTask<?>> removed = new ArrayList<>();
        // Walk backwards: removing index i only moves elements from the end into slot i.
        for (int i = heap.size() - 1; i >= 0; i--) {
            if (i >= heap.size()) {
                continue;
            }
            ScheduledTask<?> t = heap.get(i);
            if (filter.test(t)) {
                heap.removeAt(i);
                removed.add(t);
            }
        }
        return removed;
    }

    /** Removes every task, in due order, into {@code to}. */
    void drainTo(List<ScheduledTask<?>> to) {
        flushIntoHeap();
        for (ScheduledTask<?> t; (t = heap.peek()) != null; ) {
            heap.removeAt(0);
            to.add(t);
        }
    }

    private void flushIntoHeap() {
        wheel.flushAll(moveOut);
        while (run.size() > 0) {
            heap.add(run.poll());
        }
    }
}
