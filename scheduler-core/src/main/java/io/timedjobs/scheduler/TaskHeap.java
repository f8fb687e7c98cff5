package io.timedjobs.scheduler;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: touched only under the queue's lock. A binary min-heap of tasks in due order
 * (time, then sequence), in an array; every task records its own index in it (a heap {@link
 * QueuePosition}), which turns removal of an arbitrary task, the common case when timeouts are
 * cancelled, from a linear search into O(log n) sift work. A task that leaves gets {@link
 * QueuePosition#NONE} and its slot is cleared at once, so the heap never retains a task it no
 * longer holds.
 */
final class TaskHeap {

    private static final int INITIAL_CAPACITY = 16;

    /** Slots at index {@code size} and above are always null. */
    private ScheduledTask<?>[] heap = new ScheduledTask<?>[INITIAL_CAPACITY];

    private int size;

    int size() {
        return size;
    }

    /** Returns the task due first, or null when the heap is empty. */
    @Nullable
    ScheduledTask<?> peek() {
        return heap[0];
    }

    /** Returns the task at index i, for sweeps that walk the array; i below {@link #size()}. */
    ScheduledTask<?> get(int i) {
        return heap[i];
    }

    void add(ScheduledTask<?> task) {
        int i = size;
        if (i >= heap.length) {
            grow();
        }
        size = i + 1;
        siftUp(i, task);
    }

    /** Removes a task by the index it records; false if it is not in this heap. */
    boolean remove(ScheduledTask<?> task) {
        int i = task.queuePosition;
        if (!QueuePosition.inHeap(i) || i >= size || heap[i] != task) {
            return false;
        }
        removeAt(i);
        return true;
    }

    /**
     * Removes the task at index i. Only elements from the end move into slot i, so a sweep that
     * walks backwards and removes as it goes sees every element once.
     */
    void removeAt(int i) {
        ScheduledTask<?>[] heap = this.heap;
        heap[i].queuePosition = QueuePosition.NONE;
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
            p.queuePosition = k;
            k = parent;
        }
        heap[k] = task;
        task.queuePosition = k;
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
            c.queuePosition = k;
            k = child;
        }
        heap[k] = task;
        task.queuePosition = k;
    }

    private void grow() {
        int oldCapacity = heap.length;
        int newCapacity = oldCapacity + (oldCapacity >> 1);
        if (newCapacity < 0) {
            throw new OutOfMemoryError("Too many scheduled tasks");
        }
        heap = Arrays.copyOf(heap, newCapacity);
    }
}
