package io.timedjobs.scheduler;

import static io.timedjobs.scheduler.StressBudget.check;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Producers that push a task and then read the plan, racing a leader that publishes its plan,
 * sleeps, withdraws it and drains: a task its producer left on the stripe is never forgotten
 * (once no plan is in force, it has been drained) and never late (while a plan is in force, the
 * task needs no attention before the plan's wake-up time).
 *
 * <p>A stripe here is one flag per task, set by the push and taken by the drain: what is checked is
 * the plan's publication order, not the stripes (see {@link HandoffStripesStress}). A producer that
 * left its task checks it right after its offer, at a moment when no leader operation is under way
 * (a sequence count, odd while one is, tells; it waits one out): then either the task was drained,
 * or a plan is in force that lets it wait.
 */
@Param(name = "time", gen = IntGen.class, conf = "1:4")
public class WakePlanStress {

    private static final int MAX_TASKS = 16;

    private final WakePlan plan = new WakePlan();

    private final AtomicInteger nextTask = new AtomicInteger();

    /** Per task: 1 while on the stripe; taken by the drain. */
    private final AtomicIntegerArray staged = new AtomicIntegerArray(MAX_TASKS);

    /** Per task: 1 once handled, by its producer (which drains at once) or by the leader's drain. */
    private final AtomicIntegerArray handled = new AtomicIntegerArray(MAX_TASKS);

    /** Per task: its attention time; -1 before its offer. */
    private final AtomicIntegerArray attention = new AtomicIntegerArray(MAX_TASKS);

    /** Even while no leader operation is under way: incremented at the start and at the end of each. */
    private final AtomicInteger leaderSequence = new AtomicInteger();

    /** The first violation a producer saw, or null. */
    private volatile String violation;

    public WakePlanStress() {
        for (int i = 0; i < MAX_TASKS; i++) {
            attention.set(i, -1);
        }
    }

    /** A producer offers a task needing attention at {@code time}: push first, plan second. */
    @Operation
    public void offer(@Param(name = "time") int time) {
        int i = nextTask.getAndIncrement();
        if (i >= MAX_TASKS) {
            return;
        }
        attention.set(i, time);
        staged.set(i, 1); // the push
        if (plan.mustDrainNow(time)) {
            handled.set(i, 1); // drained at once, by this thread or the lock holder
            return;
        }
        // Left on the stripe: look at a moment when no leader operation is under way, waiting out
        // one that is (a publish half done is where a wrong order would show).
        for (; ; ) {
            int before = leaderSequence.get();
            if (before % 2 != 0) {
                Thread.onSpinWait();
                continue;
            }
            boolean mustDrain = plan.mustDrainNow(time);
            boolean done = handled.get(i) == 1;
            if (leaderSequence.get() == before) {
                if (mustDrain && !done) {
                    violation = "task " + i + " (attention " + time + ") left on its stripe, "
                            + (plan.inForce() ? "and the plan sleeps past it" : "and no plan will drain it");
                }
                return;
            }
        }
    }

    /** The leader publishes its plan before it sleeps until {@code time}; the lock holder's. */
    @Operation(nonParallelGroup = "lock")
    public void publish(@Param(name = "time") int time) {
        if (!plan.inForce()) {
            leaderSequence.incrementAndGet();
            plan.publish(Thread.currentThread(), time);
            leaderSequence.incrementAndGet();
        }
    }

    /** The leader wakes: it withdraws the plan, then drains every stripe; the lock holder's. */
    @Operation(nonParallelGroup = "lock")
    public void wake() {
        leaderSequence.incrementAndGet();
        plan.withdraw();
        for (int i = 0; i < MAX_TASKS; i++) {
            if (staged.getAndSet(i, 0) == 1) {
                handled.set(i, 1);
            }
        }
        leaderSequence.incrementAndGet();
    }

    @Validate
    public void noTaskForgottenNorLate() {
        check(violation == null, "%s", violation);
        for (int i = 0; i < MAX_TASKS; i++) {
            int time = attention.get(i);
            if (time >= 0 && handled.get(i) == 0) {
                check(plan.inForce(), "task %d left on its stripe with no plan in force", i);
                check(!plan.mustDrainNow(time), "task %d (attention %d) left behind the plan's wake-up", i, time);
            }
        }
    }

    /**
     * Every interleaving of small scenarios, up to a bound, switch point by switch point; two
     * threads, so that most scenarios race a publish with an offer.
     */
    @Test
    void shouldNeverForgetATaskLeftOnAStripeUnderModelChecking() {
        StressBudget.modelChecking(30, 300)
                .threads(2)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(WakePlanStress.class);
    }

    /** The same scenarios on real threads, racing on this machine's cores. */
    @Test
    void shouldNeverForgetATaskLeftOnAStripeUnderStress() {
        StressBudget.stress(10, 1_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(WakePlanStress.class);
    }
}
