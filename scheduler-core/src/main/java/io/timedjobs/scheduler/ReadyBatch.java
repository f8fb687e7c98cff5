package io.timedjobs.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * Any thread may claim or cancel; made under the queue's lock and then never changed but through
 * the atomic operations below. Due tasks taken out of the queue in one go, in due order, for
 * workers to claim one at a time without the lock, by advancing {@link #next} with a CAS.
 *
 * <p>Each slot is emptied exactly once, by whoever takes its task with an atomic swap or CAS: the
 * claimer that advanced past it, or the canceller of its task (then the claimer finds it empty
 * and claims the next one). So the batch never keeps a task alive once claimed or cancelled. A
 * batched task records its slot (a batch {@link QueuePosition}).
 */
final class ReadyBatch {

    /** Most tasks in one batch; slots must stay encodable as batch positions (below 64). */
    static final int MAX_TASKS = 32;

    private final @Nullable ScheduledTask<?>[] tasks;

    private final int count;

    /** The next slot to claim; claimed slots are below it. CAS-advanced by claimers. */
    private volatile int next;

    /**
     * Slots emptied by a cancel that no claimer has passed yet, so that {@link #remaining} no
     * longer counts a cancelled task. Incremented by the canceller, decremented by the claimer that
     * finds the slot empty; between the two a reading may be one low.
     */
    private volatile int cancelled;

    /**
     * Takes the first {@code count} slots of {@code tasks}, and marks each task with its slot: this
     * class alone writes the batch encoding. Plain writes: other threads see them through the
     * volatile write that publishes the batch.
     */
    ReadyBatch(ScheduledTask<?>[] tasks, int count) {
        for (int i = 0; i < count; i++) {
            tasks[i].queuePosition = QueuePosition.batch(i);
        }
        this.tasks = tasks;
        this.count = count;
    }

    /** Returns the number of tasks neither claimed nor cancelled; may be stale by a claim. */
    int remaining() {
        return Math.max(0, count - next - cancelled); // two volatile reads
    }

    /** Claims the next task; null when every slot is claimed. */
    @Nullable
    ScheduledTask<?> claim() {
        for (; ; ) {
            int i = next; // volatile read: LoadLoad before the slot is read
            if (i >= count) {
                return null;
            }
            if (NEXT.weakCompareAndSet(this, i, i + 1)) { // CAS (volatile; may fail spuriously)
                // NOTE: the slot is past next but may still hold its task: a canceller racing for
                // it either wins the CAS in cancel() or finds the slot empty after this swap.
                ScheduledTask<?> task = (ScheduledTask<?>) SLOTS.getAndSet(tasks, i, null); // swap
                if (task != null) {
                    return task;
                }
                CANCELLED.getAndAdd(this, -1); // atomic add: passed a cancelled slot
            }
        }
    }

    /** Takes a cancelled task out of its slot; false if a claimer took it first, or it is not there. */
    boolean cancel(ScheduledTask<?> task, int slot) {
        // NOTE: see claim(): the CAS on the slot decides between the canceller and a claimer.
        if (slot < count && SLOTS.compareAndSet(tasks, slot, task, null)) { // CAS
            CANCELLED.getAndAdd(this, 1); // atomic add
            return true;
        }
        return false;
    }

    /** Returns the first task still in its slot, or null; a hint for the lateness figure. */
    @Nullable
    ScheduledTask<?> firstUnclaimed() {
        for (int i = next; i < count; i++) { // next: volatile read
            ScheduledTask<?> t = (ScheduledTask<?>) SLOTS.getAcquire(tasks, i); // acquire
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    private static final VarHandle NEXT;
    private static final VarHandle CANCELLED;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(ScheduledTask[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            NEXT = lookup.findVarHandle(ReadyBatch.class, "next", int.class);
            CANCELLED = lookup.findVarHandle(ReadyBatch.class, "cancelled", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
