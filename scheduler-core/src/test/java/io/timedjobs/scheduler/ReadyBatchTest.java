package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The ready batch, driven by seeded random claims and cancels against a list. */
class ReadyBatchTest {

    /**
     * Claims come in slot order and skip cancelled tasks; each task leaves exactly once, by claim
     * or by cancel; a cancel of a claimed task fails; the remaining count is exact throughout.
     */
    @Test
    void shouldMatchListUnderRandomClaimsAndCancels() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 2_000; round++) {
            int n = 1 + random.nextInt(ReadyBatch.MAX_TASKS);
            ScheduledTask<?>[] slots = new ScheduledTask<?>[ReadyBatch.MAX_TASKS];
            List<ScheduledTask<?>> model = new ArrayList<>();
            long time = ModelTasks.base(random);
            for (int i = 0; i < n; i++) {
                slots[i] = ModelTasks.task(time + i, i);
                model.add(slots[i]);
            }
            List<ScheduledTask<?>> all = List.copyOf(model);
            ReadyBatch batch = new ReadyBatch(slots, n);
            List<ScheduledTask<?>> gone = new ArrayList<>();
            while (gone.size() < n) {
                if (random.nextBoolean()) {
                    ScheduledTask<?> t = all.get(random.nextInt(n));
                    boolean inBatch = model.contains(t);
                    assertThat(batch.cancel(t, QueuePosition.batchSlot(t.queuePosition)))
                            .isEqualTo(inBatch);
                    if (inBatch) {
                        model.remove(t);
                        gone.add(t);
                    }
                } else {
                    assertThat((Object) batch.firstUnclaimed()).isSameAs(model.isEmpty() ? null : model.get(0));
                    ScheduledTask<?> claimed = batch.claim();
                    assertThat((Object) claimed).isSameAs(model.isEmpty() ? null : model.remove(0));
                    if (claimed != null) {
                        gone.add(claimed);
                    }
                }
                assertThat(batch.remaining()).isEqualTo(model.size());
            }
            assertThat((Object) batch.claim()).isNull();
            assertThat(slots).containsOnlyNulls();
            assertThat(gone).doesNotHaveDuplicates().hasSize(n);
        }
    }
}
