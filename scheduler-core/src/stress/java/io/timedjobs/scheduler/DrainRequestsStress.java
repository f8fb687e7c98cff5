package io.timedjobs.scheduler;

import static io.timedjobs.scheduler.StressBudget.check;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * The queue's lock and the requests left for its holder, on a real {@link
 * LeaderFollowerDelayQueue}: producers offering tasks and cancellers removing them, racing lock
 * holders. No leader sleeps, so no plan is in force, and no task may wait on a stripe: a producer
 * that finds the lock held leaves a drain request, a canceller a removal request, and the holder
 * performs them when it lets go. So once the threads are done, and before anything drains again,
 * every task accepted and not cancelled is in due order, exactly once; no cancelled task is; no
 * request is left. Then stop() hands every task on: each live one exactly once, never a cancelled
 * one, nothing lost.
 *
 * <p>Every task is due at once (time 0, the ticker reads 0), so each goes to the heap. The
 * operations return nothing, as in {@link StripesScenario}: what each did is recorded, and checked
 * at the end.
 */
@Param(name = "task", gen = IntGen.class, conf = "0:" + (DrainRequestsStress.CANCELLABLE - 1))
public class DrainRequestsStress {

    /** Tasks a cancel may name: the first ones offered. */
    static final int CANCELLABLE = 4;

    private static final int MAX_TASKS = 32;

    /** Two stripes; the threads' ids spread them over both, so that some threads share one. */
    private final HandoffStripes stripes = new HandoffStripes(1);

    private final DueOrder order = new DueOrder(0L);

    private final LeaderFollowerDelayQueue queue = new LeaderFollowerDelayQueue(() -> 0L, false, stripes, order);

    private final ScheduledTask<?>[] tasks = new ScheduledTask<?>[MAX_TASKS];

    /** The next task to offer. */
    private final AtomicInteger nextTask = new AtomicInteger();

    /** Per task: 1 once its offer was accepted. */
    private final AtomicIntegerArray accepted = new AtomicIntegerArray(MAX_TASKS);

    /** Per task: 1 once a cancel was started for it (one per task, as its future allows). */
    private final AtomicIntegerArray cancelled = new AtomicIntegerArray(MAX_TASKS);

    public DrainRequestsStress() {
        for (int i = 0; i < MAX_TASKS; i++) {
            tasks[i] = ModelTasks.task(0L, i);
        }
    }

    /** A producer offers the next task: inserted at once if the lock is free, else staged with a request. */
    @Operation
    public void offer() {
        int i = nextTask.getAndIncrement();
        if (i < MAX_TASKS && queue.offer(tasks[i])) {
            accepted.set(i, 1);
        }
    }

    /**
     * A canceller cancels an accepted task's future, then removes it, as the pool does: off its
     * stripe, out of due order under the lock, or left as a removal with a request.
     */
    @Operation
    public void cancel(@Param(name = "task") int i) {
        if (accepted.get(i) == 1 && cancelled.compareAndSet(i, 0, 1)) {
            ScheduledTask<?> t = tasks[i];
            t.complete(ScheduledTask.CANCELLED, null);
            queue.remove(t);
        }
    }

    /**
     * A worker passes through the lock without draining, as timeAdvanced() does: what it finds
     * asked for, it performs only through release()'s requests. (An offer that finds the lock free
     * drains too, as does every take; with no such holder after it, a lost request shows.)
     */
    @Operation
    public void holdLock() {
        queue.timeAdvanced();
    }

    /** A gauge reads the size without the lock. */
    @Operation
    public void size() {
        queue.size();
    }

    @Validate
    public void everyTaskHandedOnOnceAndNoRequestLost() {
        check(!queue.isLocked(), "the lock is held once the threads are done");
        check(!queue.drainRequested(), "a drain request is left once the threads are done");
        int live = 0;
        for (int i = 0; i < MAX_TASKS; i++) {
            int p = tasks[i].queuePosition;
            boolean inOrder = QueuePosition.inHeap(p);
            if (accepted.get(i) == 1 && cancelled.get(i) == 0) {
                live++;
                check(inOrder, "task %d accepted and not cancelled, but not in due order (position %d)", i, p);
            } else if (cancelled.get(i) == 1) {
                check(!inOrder, "task %d cancelled, but still in due order", i);
            }
        }
        check(order.size() == live, "due order holds %d tasks, %d live ones were offered", order.size(), live);
        check(stripes.depth() == 0, "%d tasks or removals are left on the stripes", stripes.depth());
        List<ScheduledTask<?>> handedOn = queue.stop();
        int[] times = new int[MAX_TASKS];
        for (ScheduledTask<?> t : handedOn) { // by identity: the order renumbered the tasks
            for (int i = 0; i < MAX_TASKS; i++) {
                if (tasks[i] == t) {
                    times[i]++;
                }
            }
        }
        for (int i = 0; i < MAX_TASKS; i++) {
            boolean isLive = accepted.get(i) == 1 && cancelled.get(i) == 0;
            check(
                    times[i] == (isLive ? 1 : 0),
                    "task %d (%s) handed on %d times",
                    i,
                    isLive ? "live" : "not live",
                    times[i]);
        }
    }

    /**
     * Every interleaving of small scenarios, up to a bound, switch point by switch point. Two
     * threads suffice for a request to be lost (one holds the lock, the other asks), and many
     * small scenarios find one sooner than a few large ones.
     */
    @Test
    void shouldPerformEveryRequestUnderModelChecking() {
        StressBudget.modelChecking(30, 200)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(0) // checked before anything drains again
                .check(DrainRequestsStress.class);
    }

    /** The same scenarios on real threads, racing on this machine's cores. */
    @Test
    void shouldPerformEveryRequestUnderStress() {
        StressBudget.stress(20, 2_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(0) // checked before anything drains again
                .check(DrainRequestsStress.class);
    }
}
