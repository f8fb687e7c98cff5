package io.timedjobs.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Any thread may stage, unstage or leave a removal, without a lock; only the holder of the queue's
 * lock drains or closes. Where producers and cancellers hand tasks and removals over to the queue:
 * a chain of chunks and a removal stack per stripe, a stripe chosen by the calling thread's id and
 * padded to cache lines of its own, so that two producers on two cores each write their own line.
 *
 * <p>A chunk is an array filled in order: a producer claims a slot by incrementing {@code claimed}
 * (beyond the length once full) and then stores its task there, so staging needs no link in the
 * task, and the chain keeps submission order. A staged task records its position in its stripe's
 * chain (a staged {@link QueuePosition}), which lets its canceller take it off without the lock.
 */
final class HandoffStripes {

    /** Most stripes: enough for the producers of a large machine to rarely share one. */
    private static final int MAX_STRIPES = 64;

    /** A stripe's chain once closed: nothing can be staged on it. */
    private static final Chunk CLOSED = new Chunk(null, 0, 0);

    /** What a cancelled task leaves in its slot, so that the slot no longer holds it. */
    private static final ScheduledTask<?> CANCELLED_SLOT = new ScheduledTask<>(null, "cancelled", 0L);

    /** Length a power of two. */
    private final Stripe[] stripes;

    private final int mask;

    HandoffStripes() {
        this(Runtime.getRuntime().availableProcessors());
    }

    HandoffStripes(int processors) {
        int n = Integer.highestOneBit(Math.max(1, processors * 2 - 1) << 1);
        this.stripes = new Stripe[Math.min(n, MAX_STRIPES)];
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Stripe();
        }
        this.mask = stripes.length - 1;
    }

    /** Returns the calling thread's stripe: by thread id, so threads started together differ. */
    private Stripe stripe() {
        return stripes[(int) Thread.currentThread().getId() & mask];
    }

    /**
     * Puts a task on the calling thread's stripe. Any thread.
     *
     * @return the number of tasks the stripe holds with it; 0 if the stripes are closed
     */
    int stage(ScheduledTask<?> task) {
        Stripe stripe = stripe();
        // The common case first, on its own: a slot free in the newest chunk. Kept small, so that
        // it is compiled early and inlined into offer; the rest is stageInNewChunk's.
        Chunk c = stripe.staged; // volatile read: the chunk's fields are seen as published
        if (c != null && c != CLOSED) {
            int i = (int) CLAIMED.getAndAdd(c, 1); // atomic add: claims slot i
            if (i < c.slots.length) {
                task.queuePosition = QueuePosition.staged(c.base + i);
                // NOTE: as in stageInNewChunk, which explains the fence.
                VarHandle.releaseFence(); // StoreStore: queuePosition before the slot
                c.slots[i] = task; // plain store, ordered by the fence above
                return c.base + i + 1;
            }
        }
        return stageInNewChunk(stripe, task);
    }

    /**
     * The rest of {@link #stage}: no chunk yet, a full one, or closed stripes; also claims a slot in
     * a chunk another thread of the stripe started meanwhile. Out of line.
     */
    private static int stageInNewChunk(Stripe stripe, ScheduledTask<?> task) {
        for (; ; ) {
            Chunk c = stripe.staged; // volatile read: the chunk's fields are seen as published
            if (c == CLOSED) {
                return 0;
            }
            if (c != null) {
                int i = (int) CLAIMED.getAndAdd(c, 1); // atomic add: claims slot i
                if (i < c.slots.length) {
                    task.queuePosition = QueuePosition.staged(c.base + i);
                    // NOTE: the slot is claimed but not yet written; the drainer waits for this
                    // store (see drainChunk). A release store, written as fence and plain store:
                    // the array VarHandle's setRelease checks the element type on every call.
                    VarHandle.releaseFence(); // StoreStore: queuePosition before the slot
                    c.slots[i] = task; // plain store, ordered by the fence above
                    return c.base + i + 1;
                }
            }
            // No chunk yet, or a full one: start the next, with this task in its first slot.
            Chunk next = c == null
                    ? new Chunk(null, 0, Chunk.FIRST)
                    : new Chunk(c, c.base + c.slots.length, Math.min(2 * c.slots.length, Chunk.LARGEST));
            task.queuePosition = QueuePosition.staged(next.base); // plain writes, published by the CAS
            next.slots[0] = task;
            next.claimed = 1; // volatile write to a chunk nobody else sees yet
            if (STAGED.compareAndSet(stripe, c, next)) { // CAS: publishes the chunk and its first slot
                return next.base + 1;
            }
        }
    }

    /**
     * Takes a cancelled task off the calling thread's stripe, without the lock: its slot is swapped
     * for a marker, so nothing keeps the task. Any thread.
     *
     * @return false if the task is not in that stripe's slot (another stripe's, drained already, or
     *     taken by a drain right now): then the caller removes it under the lock
     */
    boolean unstage(ScheduledTask<?> task, int position) {
        Chunk c = stripe().staged; // volatile read
        while (c != null && c != CLOSED && position < c.base) { // base, previous: final fields
            c = c.previous;
        }
        if (c == null || c == CLOSED) {
            return false;
        }
        int i = position - c.base;
        // NOTE: races with the drainer's swap in drainChunk; exactly one of the two takes the task.
        if (i < c.slots.length && SLOTS.compareAndSet(c.slots, i, task, CANCELLED_SLOT)) { // CAS
            CANCELLED.getAndAdd(c, 1); // atomic add
            return true;
        }
        return false;
    }

    /**
     * Leaves the removal of a cancelled task for the lock holder, on the calling thread's stripe.
     * The task must be cancelled before this is called: a removal that finds its task still on a
     * stripe does nothing, and the drain then drops the task only because it is no longer new.
     */
    void pushRemoval(ScheduledTask<?> task) {
        Stripe stripe = stripe();
        Removal removal = new Removal(task);
        for (; ; ) {
            Removal head = stripe.removals; // volatile read
            removal.next = head; // plain writes, published by the CAS below
            removal.depth = head == null ? 1 : head.depth + 1;
            if (REMOVALS.weakCompareAndSet(stripe, head, removal)) { // CAS (volatile): the node's fields
                return;
            }
        }
    }

    /**
     * Hands every staged task that is still live to {@code sink}, each stripe in the order its
     * tasks were offered. Under the queue's lock.
     */
    void drainTasks(Consumer<ScheduledTask<?>> sink) {
        for (Stripe stripe : stripes) {
            Chunk newest;
            do {
                newest = stripe.staged; // volatile read
                if (newest == null || newest == CLOSED) {
                    break;
                }
            } while (!STAGED.compareAndSet(stripe, newest, null)); // CAS: detaches the chain
            if (newest != null && newest != CLOSED) {
                drainChunks(newest, sink);
            }
        }
    }

    /**
     * Hands every removal left on the stripes to {@code remove}, which returns whether it found
     * the task. Under the queue's lock.
     *
     * @return whether a task that {@code remove} did not find is still staged
     */
    boolean drainRemovals(Predicate<ScheduledTask<?>> remove) {
        boolean staged = false;
        for (Stripe stripe : stripes) {
            if (stripe.removals != null) { // volatile read
                Removal head = (Removal) REMOVALS.getAndSet(stripe, (Removal) null); // swap
                for (Removal r = head; r != null; r = r.next) {
                    if (!remove.test(r.task) && QueuePosition.isStaged(r.task.queuePosition)) {
                        staged = true;
                    }
                }
            }
        }
        return staged;
    }

    /**
     * Closes every stripe, so that {@link #stage} returns 0 from now on, and hands what was staged
     * to {@code sink}. Under the queue's lock.
     */
    void close(Consumer<ScheduledTask<?>> sink) {
        for (Stripe stripe : stripes) {
            Chunk newest = (Chunk) STAGED.getAndSet(stripe, CLOSED); // swap
            if (newest != null && newest != CLOSED) {
                drainChunks(newest, sink);
            }
        }
    }

    /**
     * Returns the number of staged tasks less the removals waiting, for the queue's size. Any
     * thread; a moment's reading, exact only while nobody stages or drains.
     */
    int depth() {
        int n = 0;
        for (Stripe stripe : stripes) {
            n += stripe.stagedDepth() - stripe.removalDepth();
        }
        return n;
    }

    /**
     * Hands on the tasks of a detached chain of chunks, oldest first. A producer that claimed a slot
     * of the newest chunk before it was detached may still be storing its task: the chunk is closed
     * to further claims, and the claimed slots are awaited.
     */
    private static void drainChunks(Chunk newest, Consumer<ScheduledTask<?>> sink) {
        int count = 0;
        for (Chunk c = newest; c != null; c = c.previous) {
            // Swap: closes the chunk to claims; older ones are full already. filledUpTo: plain.
            c.filledUpTo = (int) CLAIMED.getAndSet(c, c.slots.length);
            count++;
        }
        Chunk[] oldestFirst = new Chunk[count];
        for (Chunk c = newest; c != null; c = c.previous) {
            oldestFirst[--count] = c;
        }
        for (Chunk c : oldestFirst) {
            drainChunk(c, sink);
        }
    }

    private static void drainChunk(Chunk chunk, Consumer<ScheduledTask<?>> sink) {
        ScheduledTask<?>[] slots = chunk.slots;
        int filled = Math.min(chunk.filledUpTo, slots.length);
        for (int i = 0; i < filled; i++) {
            ScheduledTask<?> t;
            // NOTE: taken with a swap, so that a cancel racing for the slot either wins it or finds
            // it empty and removes the task from wherever the sink puts it.
            while ((t = (ScheduledTask<?>) SLOTS.getAndSet(slots, i, null)) == null) { // swap
                Thread.onSpinWait(); // claimed, not yet stored: the producer is between two steps
            }
            if (t == CANCELLED_SLOT) {
                continue;
            }
            t.queuePosition = QueuePosition.NONE; // plain write, under the queue's lock
            if (t.isNew()) { // cancelled while staged: it never enters the queue
                sink.accept(t);
            }
        }
    }

    /** A removal handed over to the lock holder. */
    private static final class Removal {
        final ScheduledTask<?> task;

        @Nullable
        Removal next;

        /** Number of removals on the stack from this one down, so that depth() needs no counter. */
        int depth;

        Removal(ScheduledTask<?> task) {
            this.task = task;
        }
    }

    /** Padding, so that no other object's fields share a cache line with a stripe's heads. */
    @SuppressWarnings("unused")
    abstract static class StripePadBefore {
        long p01, p02, p03, p04, p05, p06, p07, p08;
    }

    abstract static class StripeHeads extends StripePadBefore {
        /**
         * Tasks offered but not yet drained: the newest of a chain of chunks, each linked to the
         * older one before it; null when there are none, or {@link #CLOSED}.
         */
        volatile @Nullable Chunk staged;

        /** Cancelled tasks whose removal waits for the lock holder, newest first. */
        volatile @Nullable Removal removals;
    }

    @SuppressWarnings("unused")
    static final class Stripe extends StripeHeads {
        long q01, q02, q03, q04, q05, q06, q07, q08;

        /** Number of tasks on the stripe, less those cancelled there. */
        int stagedDepth() {
            Chunk newest = staged; // volatile read
            if (newest == null || newest == CLOSED) {
                return 0;
            }
            int depth = newest.base + Math.min(newest.claimed, newest.slots.length); // volatile read
            for (Chunk c = newest; c != null; c = c.previous) {
                depth -= c.cancelled; // volatile read
            }
            return depth;
        }

        int removalDepth() {
            Removal head = removals; // volatile read
            return head == null ? 0 : head.depth; // plain read, published by the CAS that pushed it
        }
    }

    /**
     * An array of staged tasks, filled in order. The drainer closes a chunk by setting claimed to
     * its length, and waits for the stores of the slots claimed before that.
     */
    static final class Chunk {
        /** Capacity of a stripe's first chunk; each further one doubles, up to the largest. */
        static final int FIRST = 16;

        static final int LARGEST = 1024;

        final @Nullable ScheduledTask<?>[] slots;

        volatile int claimed;

        /** Slots whose task was cancelled while staged, left holding {@link #CANCELLED_SLOT}. */
        volatile int cancelled;

        /** The older chunk before this one in its stripe's chain, or null. */
        final @Nullable Chunk previous;

        /** Number of tasks in the older chunks of the chain, all of them full. */
        final int base;

        /** Slots claimed when the drainer closed the chunk; written and read by the drainer only. */
        int filledUpTo;

        Chunk(@Nullable Chunk previous, int base, int capacity) {
            this.previous = previous;
            this.base = base;
            this.slots = new ScheduledTask<?>[capacity];
        }
    }

    private static final VarHandle STAGED;
    private static final VarHandle REMOVALS;
    private static final VarHandle CLAIMED;
    private static final VarHandle CANCELLED;
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(ScheduledTask[].class);

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STAGED = lookup.findVarHandle(StripeHeads.class, "staged", Chunk.class);
            CLAIMED = lookup.findVarHandle(Chunk.class, "claimed", int.class);
            CANCELLED = lookup.findVarHandle(Chunk.class, "cancelled", int.class);
            REMOVALS = lookup.findVarHandle(StripeHeads.class, "removals", Removal.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
