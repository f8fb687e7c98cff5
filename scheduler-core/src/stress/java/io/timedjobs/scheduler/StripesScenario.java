package io.timedjobs.scheduler;

import static io.timedjobs.scheduler.StressBudget.check;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * Test code only: the operations and checks of the stress tests of {@link HandoffStripes}.
 * Producers staging tasks, cancellers taking them off or leaving removals, and one lock holder
 * draining and closing, on several threads: every task is handed on exactly once or taken off by
 * exactly one cancel, never both; every task accepted and not cancelled reaches the queue, at
 * close too (an add is either handed on or refused); a cancelled task is out of the queue once the
 * removals are done; one producer's tasks reach the queue in the order it staged them.
 *
 * <p>The lock holder's operations share a group that never runs in parallel with itself, as the
 * queue's lock ensures. Stripes are no linearizable collection, and need not be: a drain reads one
 * stripe after the other, so it may see a task staged on the second stripe after another thread's
 * task missed on the first. So the operations return nothing; what each saw is recorded, and
 * checked once the threads are done, after a last close.
 */
@Param(name = "task", gen = IntGen.class, conf = "0:" + (StripesScenario.CANCELLABLE - 1))
public abstract class StripesScenario {

    /** Tasks a cancel may name: the first ones staged. */
    static final int CANCELLABLE = 4;

    static final int MAX_TASKS = 48;

    private static final int NOT_ADDED = 0;
    private static final int ACCEPTED = 1;
    private static final int REFUSED = 2;

    /** Two stripes; the threads' ids spread them over both. */
    private final HandoffStripes stripes = new HandoffStripes(1);

    private final ScheduledTask<?>[] tasks = new ScheduledTask<?>[MAX_TASKS];

    /** The next task to stage. */
    private final AtomicInteger nextTask = new AtomicInteger();

    /** Per task: whether its add was accepted or refused. Written after stage() returned. */
    private final AtomicIntegerArray added = new AtomicIntegerArray(MAX_TASKS);

    /** Per task: the id of the thread that staged it. */
    private final long[] stagedBy = new long[MAX_TASKS];

    /** Per task: whether a cancel was started for it (one per task, as its future allows). */
    private final AtomicIntegerArray cancelled = new AtomicIntegerArray(MAX_TASKS);

    /** Per task: how many unstage() calls took it off its stripe. */
    private final AtomicIntegerArray unstaged = new AtomicIntegerArray(MAX_TASKS);

    /** Per task: how many times a drain or close handed it on. Lock holder only. */
    private final int[] handedOn = new int[MAX_TASKS];

    /** The tasks handed on, in order; the queue of the model. Lock holder only. */
    private final List<ScheduledTask<?>> handed = new ArrayList<>();

    /** Per task: whether it is in the queue, handed on and not removed since. Lock holder only. */
    private final boolean[] queued = new boolean[MAX_TASKS];

    protected StripesScenario() {
        for (int i = 0; i < MAX_TASKS; i++) {
            tasks[i] = ModelTasks.task(0L, i);
        }
    }

    /** A producer offers one task. */
    @Operation
    public void add() {
        stage(1);
    }

    /** Stages the next {@code count} tasks, as long as there are any. */
    final void stage(int count) {
        for (int n = 0; n < count; n++) {
            int i = nextTask.getAndIncrement();
            if (i >= MAX_TASKS) {
                return;
            }
            stagedBy[i] = Thread.currentThread().getId();
            int depth = stripes.stage(tasks[i]);
            added.set(i, depth > 0 ? ACCEPTED : REFUSED);
        }
    }

    /**
     * A canceller takes an accepted task off its stripe by the slot swap, as the queue's remove()
     * does when the task is on the calling thread's stripe; the task stays new, so that the drain's
     * own look at the state cannot hide a task that both the swap and a drain took. Where the swap
     * fails, the task is cancelled before its removal is left for the lock holder, as in the queue:
     * a removal that finds its task still staged relies on the drain dropping it.
     */
    @Operation
    public void unstage(@Param(name = "task") int i) {
        if (added.get(i) == ACCEPTED && cancelled.compareAndSet(i, 0, 1)) {
            ScheduledTask<?> t = tasks[i];
            int h = t.queuePosition;
            if (QueuePosition.isStaged(h) && stripes.unstage(t, QueuePosition.stagedPosition(h))) {
                unstaged.incrementAndGet(i);
            } else {
                t.complete(ScheduledTask.CANCELLED, null);
                stripes.pushRemoval(t);
            }
        }
    }

    /** A canceller cancels the task's future first, then removes it: the real order. */
    @Operation
    public void cancel(@Param(name = "task") int i) {
        if (added.get(i) == ACCEPTED && cancelled.compareAndSet(i, 0, 1)) {
            tasks[i].complete(ScheduledTask.CANCELLED, null);
            remove(i);
        }
    }

    private void remove(int i) {
        ScheduledTask<?> t = tasks[i];
        int h = t.queuePosition; // read once, as the queue does: a drain may change it at any moment
        if (QueuePosition.isStaged(h) && stripes.unstage(t, QueuePosition.stagedPosition(h))) {
            unstaged.incrementAndGet(i);
        } else {
            stripes.pushRemoval(t);
        }
    }

    /** The lock holder moves the stripes into the queue, then performs the removals. */
    @Operation(nonParallelGroup = "lock")
    public void drain() {
        stripes.drainTasks(this::handOn);
        stripes.drainRemovals(this::removeQueued);
    }

    /** The lock holder closes the stripes, as shutdown does, then performs the removals. */
    @Operation(nonParallelGroup = "lock")
    public void close() {
        stripes.close(this::handOn);
        stripes.drainRemovals(this::removeQueued);
    }

    /** A gauge reads the depth, as size() does. */
    @Operation
    public void depth() {
        stripes.depth();
    }

    private void handOn(ScheduledTask<?> t) {
        handedOn[t.sequence]++;
        handed.add(t);
        queued[t.sequence] = true;
    }

    private boolean removeQueued(ScheduledTask<?> t) {
        boolean found = queued[t.sequence];
        queued[t.sequence] = false;
        return found;
    }

    @Validate
    public void everyTaskHandedOnOnceOrTakenOff() {
        close();
        check(stripes.stage(ModelTasks.task(0L, -1)) == 0, "a task was accepted after close");
        check(stripes.depth() == 0, "depth() is %d once closed", stripes.depth());
        for (int i = 0; i < MAX_TASKS; i++) {
            int state = added.get(i);
            int on = handedOn[i];
            int off = unstaged.get(i);
            check(on + off <= 1, "task %d handed on %d times and taken off %d times", i, on, off);
            if (state == ACCEPTED && cancelled.get(i) == 0) {
                check(on == 1, "task %d accepted and never cancelled, but handed on %d times", i, on);
            } else if (state == ACCEPTED && tasks[i].isNew()) {
                check(on + off == 1, "task %d unstaged but neither handed on nor taken off", i);
            } else if (state != ACCEPTED) {
                check(on == 0, "task %d %s, but handed on", i, state == REFUSED ? "refused" : "never added");
            }
            if (cancelled.get(i) == 1) {
                check(!queued[i], "task %d cancelled but still in the queue", i);
            }
        }
        Map<Long, Integer> lastByProducer = new HashMap<>();
        for (ScheduledTask<?> t : handed) {
            Integer last = lastByProducer.put(stagedBy[t.sequence], t.sequence);
            check(last == null || last < t.sequence, "task %d of one producer handed on after %d", last, t.sequence);
        }
    }
}
