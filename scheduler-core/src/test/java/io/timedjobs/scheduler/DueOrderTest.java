package io.timedjobs.scheduler;

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
     * in the model's order, none before its time, the size is exact, and neither the earliest time
     * nor a leader's wake-up time is later than the model's earliest due time.
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
                    assertThat(order.wakeTime(order.first()) - model.first().time)
                            .as("a leader wakes no later than the earliest task is due")
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

    /**
     * After the first due task is polled, a batch takes the next due tasks, at most MAX_TASKS, in
     * the model's order (equal times first in, first out), each marked with its slot; tasks not
     * yet due stay; and nothing due leaves no batch. From ticks near Long.MAX_VALUE.
     */
    @Test
    void shouldMoveDueTasksIntoBatchesInOrder() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 200; round++) {
            long now = ModelTasks.base(random);
            DueOrder order = new DueOrder(now);
            TreeSet<ScheduledTask<?>> model = new TreeSet<>(ModelTasks.DUE_ORDER);
            int n = random.nextInt(120);
            for (int i = 0; i < n; i++) {
                long delay = random.nextBoolean() ? random.nextLong(4) : random.nextLong(3 * BUCKET);
                ScheduledTask<?> t = ModelTasks.task(now + delay, 0);
                order.add(t);
                model.add(t);
            }
            now += random.nextLong(2 * BUCKET);
            order.advance(now);
            for (; ; ) {
                ScheduledTask<?> first = order.first();
                if (first == null || first.time - now > 0) {
                    final long end = now;
                    assertThat(model).allMatch(t -> t.time - end > 0);
                    break;
                }
                assertThat((Object) order.poll(first)).isSameAs(model.pollFirst());
                ReadyBatch batch = order.pollDueBatch(now);
                List<ScheduledTask<?>> expected = new ArrayList<>();
                for (ScheduledTask<?> t : model) {
                    if (t.time - now > 0 || expected.size() == ReadyBatch.MAX_TASKS) {
                        break;
                    }
                    expected.add(t);
                }
                if (expected.isEmpty()) {
                    assertThat(batch).isNull();
                    continue;
                }
                assertThat(batch).isNotNull();
                assertThat(batch.remaining()).isEqualTo(expected.size());
                for (int i = 0; i < expected.size(); i++) {
                    assertThat(expected.get(i).queuePosition).isEqualTo(QueuePosition.batch(i));
                    assertThat((Object) batch.claim()).isSameAs(expected.get(i));
                }
                assertThat((Object) batch.claim()).isNull();
                model.removeAll(expected);
                assertThat(order.size()).isEqualTo(model.size());
            }
        }
    }
}
