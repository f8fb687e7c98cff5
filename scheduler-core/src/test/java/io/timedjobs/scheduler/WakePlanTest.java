package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The leader's wake-up plan, driven by seeded random operations against a plain model. */
class WakePlanTest {

    /**
     * A task may stay on its stripe only while a plan is in force and it needs no attention before
     * the plan's wake-up time, compared across wrap-around; a withdrawn plan lets nothing wait and
     * names no leader; a new plan replaces the old one whole.
     */
    @Test
    void shouldMatchModelUnderRandomPublishesAndWithdrawals() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        Thread[] threads = {new Thread(() -> {}), new Thread(() -> {}), Thread.currentThread()};
        for (int round = 0; round < 200; round++) {
            WakePlan plan = new WakePlan();
            boolean inForce = false;
            long wakeAt = 0L;
            Thread leader = null;
            long base = ModelTasks.base(random);
            for (int op = 0; op < 500; op++) {
                switch (random.nextInt(3)) {
                    case 0 -> {
                        wakeAt = base + random.nextLong(1L << 22);
                        leader = threads[random.nextInt(threads.length)];
                        inForce = true;
                        plan.publish(leader, wakeAt);
                    }
                    case 1 -> {
                        inForce = false;
                        leader = null;
                        plan.withdraw();
                    }
                    default -> {
                        long attention = base + random.nextLong(1L << 22);
                        boolean expected = !inForce || Long.compare(attention - base, wakeAt - base) < 0;
                        assertThat(plan.mustDrainNow(attention)).isEqualTo(expected);
                    }
                }
                assertThat(plan.inForce()).isEqualTo(inForce);
                assertThat(plan.leaderThread()).isSameAs(leader);
                if (inForce) {
                    assertThat(plan.mustDrainNow(wakeAt)).isFalse(); // due at the wake-up: may wait
                    assertThat(plan.mustDrainNow(wakeAt - 1)).isTrue();
                    assertThat(plan.mustDrainNow(wakeAt + (1L << 40))).isFalse();
                } else {
                    assertThat(plan.mustDrainNow(base)).isTrue();
                }
            }
        }
    }
}
