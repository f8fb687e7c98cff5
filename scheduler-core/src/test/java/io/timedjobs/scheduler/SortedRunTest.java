package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The sorted run, driven by seeded random operations against a TreeSet. */
class SortedRunTest {

    /**
     * Appends of sorted batches due after the run's last task, polls from the front and removals
     * of arbitrary tasks (some already gone) keep the first, the last and the size right, through
     * compactions and growth, with times that wrap around past Long.MAX_VALUE.
     */
    @Test
    void shouldMatchTreeSetUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 200; round++) {
            SortedRun run = new SortedRun();
            TreeSet<ScheduledTask<?>> model = new TreeSet<>(ModelTasks.DUE_ORDER);
            List<ScheduledTask<?>> known = new ArrayList<>();
            long time = ModelTasks.base(random);
            int sequence = random.nextInt();
            for (int op = 0; op < 400; op++) {
                int choice = random.nextInt(10);
                if (choice < 3) {
                    int n = 1 + random.nextInt(40);
                    ScheduledTask<?>[] batch = new ScheduledTask<?>[n + random.nextInt(3)];
                    for (int i = 0; i < n; i++) {
                        time += random.nextInt(3) == 0 ? 0 : random.nextLong(1L << 30); // equal times too
                        batch[i] = ModelTasks.task(time, sequence++);
                        model.add(batch[i]);
                        known.add(batch[i]);
                    }
                    run.append(batch, n);
                    assertThat(batch).containsOnlyNulls();
                } else if (choice < 7 && !known.isEmpty()) {
                    ScheduledTask<?> t = known.get(random.nextInt(known.size()));
                    assertThat(run.remove(t)).isEqualTo(model.remove(t));
                    assertThat(t.queuePosition).isEqualTo(QueuePosition.NONE);
                } else if (!model.isEmpty()) {
                    assertThat((Object) run.poll()).isSameAs(model.pollFirst());
                }
                assertThat(run.size()).isEqualTo(model.size());
                assertThat((Object) run.first()).isSameAs(model.isEmpty() ? null : model.first());
                assertThat((Object) run.last()).isSameAs(model.isEmpty() ? null : model.last());
            }
            for (ScheduledTask<?> t : model) {
                assertThat(QueuePosition.inRun(t.queuePosition)).isTrue();
            }
        }
    }
}
