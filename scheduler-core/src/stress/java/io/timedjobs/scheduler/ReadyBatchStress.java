package io.timedjobs.scheduler;

import static io.timedjobs.scheduler.StressBudget.check;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Workers claiming from one ready batch while cancellers take tasks out of it, on several threads:
 * every task leaves the batch exactly once, by one claim or by one cancel; a cancel that reports
 * success is never matched by a claim of the same task; each claimer gets its tasks in slot order;
 * and once nothing runs, the remaining count is exact and the slots hold nothing.
 *
 * <p>The batch is no linearizable queue, and needs not be: a claimer that advanced past a slot may
 * still be taking its task while a faster claimer returns the next one. So the operations return
 * nothing, and what each one saw is recorded and checked when the threads are done.
 */
@Param(name = "slot", gen = IntGen.class, conf = "0:" + (ReadyBatchStress.TASKS - 1))
@Param(name = "thread", gen = ThreadIdGen.class)
public class ReadyBatchStress {

    static final int TASKS = 5;

    private static final int THREADS = 3;

    private final ScheduledTask<?>[] tasks = new ScheduledTask<?>[TASKS];

    private final ReadyBatch batch;

    /** Per task: how many claims returned it, and how many cancels reported taking it. */
    private final AtomicIntegerArray claims = new AtomicIntegerArray(TASKS);

    private final AtomicIntegerArray cancels = new AtomicIntegerArray(TASKS);

    /** Per thread: the slot of the last task it claimed, to check slot order; -1 before any. */
    private final int[] lastClaimed = new int[THREADS + 2];

    /** Set by a claimer that got a task of a lower slot than one it got before. */
    private volatile boolean outOfOrder;

    public ReadyBatchStress() {
        ScheduledTask<?>[] slots = new ScheduledTask<?>[ReadyBatch.MAX_TASKS];
        for (int i = 0; i < TASKS; i++) {
            tasks[i] = ModelTasks.task(i, i);
            slots[i] = tasks[i];
        }
        batch = new ReadyBatch(slots, TASKS);
        Arrays.fill(lastClaimed, -1);
    }

    /** A worker claims the next task, as take() does. */
    @Operation
    public void claim(@Param(name = "thread") int thread) {
        ScheduledTask<?> t = batch.claim();
        if (t != null) {
            int slot = t.sequence;
            claims.incrementAndGet(slot);
            int row = Math.min(thread + 1, lastClaimed.length - 1);
            if (slot <= lastClaimed[row]) {
                outOfOrder = true;
            }
            lastClaimed[row] = slot;
        }
    }

    /** A canceller takes a task out of its slot, as the queue's remove() does for a batched task. */
    @Operation
    public void cancel(@Param(name = "slot") int slot) {
        ScheduledTask<?> t = tasks[slot];
        if (batch.cancel(t, QueuePosition.batchSlot(t.queuePosition))) {
            cancels.incrementAndGet(slot);
        }
    }

    /** A gauge reads the count and the first waiting task, as the figures do; checked at rest. */
    @Operation
    public void remaining() {
        batch.remaining();
        batch.firstUnclaimed();
    }

    @Validate
    public void everyTaskLeftExactlyOnce() {
        int left = 0;
        for (int i = 0; i < TASKS; i++) {
            int gone = claims.get(i) + cancels.get(i);
            check(gone <= 1, "task %d claimed %d times and cancelled %d times", i, claims.get(i), cancels.get(i));
            left += 1 - gone;
        }
        check(!outOfOrder, "a claimer got its tasks out of slot order");
        check(batch.remaining() == left, "remaining() is %d at rest, with %d tasks left", batch.remaining(), left);
        for (ScheduledTask<?> t; (t = batch.claim()) != null; ) {
            claims.incrementAndGet(t.sequence);
        }
        for (int i = 0; i < TASKS; i++) {
            check(claims.get(i) + cancels.get(i) == 1, "task %d never left the batch", i);
        }
        check(batch.remaining() == 0, "remaining() is %d once all is claimed", batch.remaining());
        check(batch.firstUnclaimed() == null, "a task is left once all is claimed");
    }

    /** Every interleaving of small scenarios, up to a bound, switch point by switch point. */
    @Test
    void shouldHandEachTaskOutOnceUnderModelChecking() {
        StressBudget.modelChecking(10, 500)
                .threads(THREADS)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(ReadyBatchStress.class);
    }

    /** The same scenarios on real threads, racing on this machine's cores. */
    @Test
    void shouldHandEachTaskOutOnceUnderStress() {
        StressBudget.stress(10, 1_000)
                .threads(THREADS)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(ReadyBatchStress.class);
    }
}
