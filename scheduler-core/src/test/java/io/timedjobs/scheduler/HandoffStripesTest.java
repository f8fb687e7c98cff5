package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The hand-off stripes, driven from one thread by seeded random operations against a list. */
class HandoffStripesTest {

    /**
     * Stages, cancels on the stripe, removals left for the lock holder and drains: a drain hands on
     * exactly the staged tasks not cancelled there, in the order they were staged, across chunk
     * boundaries; depth counts them less the removals waiting; after close nothing can be staged,
     * and what was staged is handed on.
     */
    @Test
    void shouldMatchListUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 300; round++) {
            HandoffStripes stripes = new HandoffStripes(1 + random.nextInt(8));
            List<ScheduledTask<?>> model = new ArrayList<>(); // staged, in order
            Set<ScheduledTask<?>> removalsWaiting = new HashSet<>();
            int sequence = 0;
            int ops = 50 + random.nextInt(3_000); // past several chunk sizes
            for (int op = 0; op < ops; op++) {
                int choice = random.nextInt(20);
                if (choice < 12) {
                    ScheduledTask<?> t = ModelTasks.task(random.nextLong(), sequence++);
                    assertThat(stripes.stage(t)).isPositive();
                    assertThat(QueuePosition.isStaged(t.queuePosition)).isTrue();
                    model.add(t);
                } else if (choice < 16 && !model.isEmpty()) {
                    ScheduledTask<?> t = model.get(random.nextInt(model.size()));
                    assertThat(stripes.unstage(t, QueuePosition.stagedPosition(t.queuePosition)))
                            .isTrue();
                    assertThat(stripes.unstage(t, QueuePosition.stagedPosition(t.queuePosition)))
                            .as("a second time")
                            .isFalse();
                    model.remove(t);
                } else if (choice < 18) {
                    ScheduledTask<?> t = ModelTasks.task(0L, -1);
                    stripes.pushRemoval(t);
                    removalsWaiting.add(t);
                } else if (choice < 19) {
                    List<ScheduledTask<?>> drained = new ArrayList<>();
                    stripes.drainTasks(drained::add);
                    assertThat(drained).containsExactlyElementsOf(model);
                    assertThat(drained).allMatch(t -> t.queuePosition == QueuePosition.NONE);
                    model.clear();
                } else {
                    List<ScheduledTask<?>> removed = new ArrayList<>();
                    assertThat(stripes.drainRemovals(t -> removed.add(t))).isFalse();
                    assertThat(removed).containsExactlyInAnyOrderElementsOf(removalsWaiting);
                    removalsWaiting.clear();
                }
                assertThat(stripes.depth()).isEqualTo(model.size() - removalsWaiting.size());
            }
            List<ScheduledTask<?>> closed = new ArrayList<>();
            stripes.close(closed::add);
            assertThat(closed).containsExactlyElementsOf(model);
            assertThat(stripes.stage(ModelTasks.task(0L, 0))).isZero();
            assertThat(stripes.depth()).isEqualTo(-removalsWaiting.size());
        }
    }

    /** A task cancelled (no longer new) while staged is dropped by the drain, not handed on. */
    @Test
    void shouldDropTaskCancelledWhileStaged() {
        HandoffStripes stripes = new HandoffStripes(1);
        ScheduledTask<?> kept = ModelTasks.task(1L, 0);
        ScheduledTask<?> cancelled = ModelTasks.task(2L, 1);
        stripes.stage(kept);
        stripes.stage(cancelled);
        cancelled.complete(ScheduledTask.CANCELLED, null);
        List<ScheduledTask<?>> drained = new ArrayList<>();
        stripes.drainTasks(drained::add);
        assertThat(drained).containsExactly(kept);
    }
}
