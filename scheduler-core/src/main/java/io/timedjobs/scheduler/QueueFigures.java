package io.timedjobs.scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The holder of the queue's lock writes; any thread reads, without the lock. Figures for meters
 * (contract 10): the number of queued tasks and how overdue the first one is.
 *
 * <p>The lock holder moves tasks between places that {@link #size} adds up (a stripe, the heap,
 * the wheel, the run, the batch), so a reader could catch a task in none of them. The figures are
 * therefore guarded like a sequence lock: each holder makes {@link #version} odd when it takes the
 * lock ({@link #moving}), and publishes its tasks' count and earliest due time and makes the
 * version even again when it lets go ({@link #publish}); a reader retries while the version is odd
 * or changed under it, and after a bounded number of tries takes what it read.
 */
final class QueueFigures {

    /** Readings a reader spins for, then yields for, before it parks between readings. */
    private static final int SPINS = 64;

    private static final int YIELDS = 128;

    /**
     * Longest a reader waits for a lock holder to let go before it takes what it read. Holders let
     * go within microseconds; this bounds the wait when one has lost its processor, or moves a
     * very large pile of tasks.
     */
    private static final long MAX_WAIT_NANOS = 100_000_000L;

    private static final long PARK_NANOS = 20_000L;

    /** Odd while the lock is held. Written only under the lock, with release stores. */
    private volatile int version;

    /** Tasks in the heap, the wheel and the run when the lock was last released. */
    private volatile int held;

    /** When the earliest of those tasks is due, when held is not 0. */
    private volatile long earliest;

    /** Marks the figures as moving; called right after the queue's lock was taken. */
    void moving() {
        VERSION.setRelease(this, version + 1); // volatile read (only holders write it), release store
        VarHandle.storeStoreFence(); // StoreStore: the odd version is visible before any move it covers
    }

    /** Publishes the figures of the tasks in due order; called right before the lock is released. */
    void publish(DueOrder order) {
        int n = order.size();
        HELD.setRelease(this, n); // release store
        if (n > 0) {
            EARLIEST.setRelease(this, order.earliest()); // release store
        }
        VERSION.setRelease(this, version + 1); // release store, after the figures
    }

    /**
     * Returns the number of queued tasks: those published, those in the batch not yet claimed or
     * cancelled, and those on the stripes less the removals waiting there.
     */
    int size(HandoffStripes stripes, Supplier<@Nullable ReadyBatch> batch) {
        long giveUpAt = NOT_PARKED;
        for (int attempt = 1; ; attempt++) {
            int v = version; // volatile read, LoadLoad: the figures below are read after it
            int n = held; // volatile read
            ReadyBatch b = batch.get(); // volatile read
            if (b != null) {
                n += b.remaining(); // volatile reads
            }
            n += stripes.depth(); // volatile reads
            if (steady(v) || (giveUpAt = backOff(attempt, giveUpAt)) == GIVE_UP) {
                return Math.max(0, n);
            }
        }
    }

    /**
     * Returns how long the most overdue task is past its due time at {@code now}, or 0 when none is
     * due. Tasks still on a stripe are not looked at: one that is due is moved within microseconds
     * by the worker it woke.
     */
    long overdueNanos(long now, Supplier<@Nullable ReadyBatch> batch) {
        long giveUpAt = NOT_PARKED;
        for (int attempt = 1; ; attempt++) {
            int v = version; // volatile read, LoadLoad: the figures below are read after it
            boolean found = held > 0; // volatile read
            long first = earliest; // volatile read
            ReadyBatch b = batch.get(); // volatile read
            ScheduledTask<?> t = b == null ? null : b.firstUnclaimed(); // acquire loads
            if (t != null) { // the unclaimed tasks of a batch are due before anything held
                first = found && first - t.time < 0 ? first : t.time;
                found = true;
            }
            if (steady(v) || (giveUpAt = backOff(attempt, giveUpAt)) == GIVE_UP) {
                return found ? Math.max(0L, now - first) : 0L;
            }
        }
    }

    /** Whether figures read after version {@code v} are consistent: no holder moved tasks meanwhile. */
    private boolean steady(int v) {
        return (v & 1) == 0 && v == version; // volatile read: LoadLoad after the figures
    }

    /**
     * Waits a little before the next reading: spinning, then yielding, then parked, for a lock
     * holder that may have lost its processor.
     *
     * @param giveUpAt when the reader gives up, once it parks; {@link #NOT_PARKED} before
     * @return what to pass as giveUpAt next time; {@link #GIVE_UP} when the reader takes what it read
     */
    private static long backOff(int attempt, long giveUpAt) {
        if (attempt < SPINS) {
            Thread.onSpinWait();
            return giveUpAt;
        }
        if (attempt < YIELDS) {
            Thread.yield();
            return giveUpAt;
        }
        long now = System.nanoTime();
        if (giveUpAt == NOT_PARKED) {
            giveUpAt = now + MAX_WAIT_NANOS;
        } else if (now - giveUpAt >= 0L) {
            return GIVE_UP;
        }
        LockSupport.parkNanos(PARK_NANOS);
        return giveUpAt;
    }

    /** See {@link #backOff}. A deadline that happens to equal one of them ends or restarts the wait early. */
    private static final long NOT_PARKED = 0L;

    private static final long GIVE_UP = Long.MIN_VALUE;

    private static final VarHandle VERSION;
    private static final VarHandle HELD;
    private static final VarHandle EARLIEST;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            VERSION = lookup.findVarHandle(QueueFigures.class, "version", int.class);
            HELD = lookup.findVarHandle(QueueFigures.class, "held", int.class);
            EARLIEST = lookup.findVarHandle(QueueFigures.class, "earliest", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
