package io.timedjobs.scheduler.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The queue's order over heap, wheel and run, driven by seeded random operations against a TreeSet. */
class DueOrderTest {

    private static final long BUCKET = 1L << TimingWheel.SHIFT;

    /**
     * Adds (numbered in order, so equal times leave first in, first out), removals, time moving,
     * polls of due tasks and sweeps, from ticks near Long.MAX_VALUE: every task due by now leaves
     * in the model's order, none before its time, the size is exact and the earliest time never
     * later than the model's.
     */
    @Test
    void shouldMatchTreeSetUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 60; round++) {
            long now = ModelTasks.base(random);
            DueOrder order = new DueOrder(now);
            TreeSet<ScheduledTask<?>> model = new TreeSet<>(ModelTasks.DUE_ORDER);
            List<ScheduledTask<?>> known = new ArrayList<>();
            for (int op = 0; op < 800; op++) {
                int choice = random.nextInt(10);
                if (choice < 5) {
                    long delay = random.nextInt(3) == 0 ? BUCKET * random.nextInt(20) : random.nextLong(40 * BUCKET);
                    ScheduledTask<?> t = ModelTasks.task(now + delay, 0);
                    long attention = order.add(t);
                    assertThat(attention - t.time).isNotPositive();
                    model.add(t);
                    known.add(t);
                } else if (choice < 6 && !known.isEmpty()) {
                    ScheduledTask<?> t = known.get(random.nextInt(known.size()));
                    assertThat(order.remove(t)).isEqualTo(model.remove(t));
                } else if (choice < 8) {
                    now += random.nextLong(3 * BUCKET);
                    order.advance(now);
                } else {
                    ScheduledTask<?> first = order.first();
                    ScheduledTask<?> expected = model.isEmpty() ? null : model.first();
                    if (expected != null && expected.time - now <= 0) {
                        assertThat((Object) first)
                                .as("the task due first, due by now")
                                .isSameAs(expected);
                        assertThat((Object) order.poll(first)).isSameAs(model.pollFirst());
                    }
                }
                assertThat(order.size()).isEqualTo(model.size());
                if (!model.isEmpty()) {
                    assertThat(order.earliest() - model.first().time)
                            .as("a lower bound of the earliest due time")
                            .isNotPositive();
                }
            }
            long deadline = now + 20 * BUCKET;
            List<ScheduledTask<?>> removed = order.removeIf(t -> t.time - deadline > 0);
            assertThat(removed).allMatch(t -> t.time - deadline > 0);
            model.removeAll(removed);
            List<ScheduledTask<?>> rest = new ArrayList<>();
            order.drainTo(rest);
            assertThat(rest).containsExactlyElementsOf(model);
            assertThat(order.isEmpty()).isTrue();
        }
    }
}
