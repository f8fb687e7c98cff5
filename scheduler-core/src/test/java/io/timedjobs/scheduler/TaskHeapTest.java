package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The indexed heap, driven by seeded random operations against a PriorityQueue. */
class TaskHeapTest {

    /**
     * Adds, polls and removals of arbitrary tasks (some no longer in the heap) keep the heap's head,
     * size and every task's recorded index right, with times that wrap around past Long.MAX_VALUE
     * and many equal times ordered by sequence.
     */
    @Test
    void shouldMatchPriorityQueueUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 200; round++) {
            TaskHeap heap = new TaskHeap();
            PriorityQueue<ScheduledTask<?>> model = new PriorityQueue<>(ModelTasks.DUE_ORDER);
            List<ScheduledTask<?>> known = new ArrayList<>();
            long base = ModelTasks.base(random);
            int sequence = random.nextInt(); // wraps around too
            for (int op = 0; op < 500; op++) {
                int choice = random.nextInt(10);
                if (choice < 5) {
                    long time = base + (random.nextBoolean() ? random.nextInt(8) : random.nextLong(1L << 40));
                    ScheduledTask<?> t = ModelTasks.task(time, sequence++);
                    heap.add(t);
                    model.add(t);
                    known.add(t);
                } else if (choice < 7 && !known.isEmpty()) {
                    ScheduledTask<?> t = known.get(random.nextInt(known.size()));
                    assertThat(heap.remove(t)).isEqualTo(model.remove(t));
                    assertThat(t.queuePosition).isEqualTo(QueuePosition.NONE);
                } else {
                    ScheduledTask<?> head = heap.peek();
                    assertThat((Object) head).isSameAs(model.peek());
                    if (head != null) {
                        heap.removeAt(0);
                        model.poll();
                    }
                }
                assertThat(heap.size()).isEqualTo(model.size());
                assertThat((Object) heap.peek()).isSameAs(model.peek());
            }
            for (int i = 0; i < heap.size(); i++) {
                assertThat(heap.get(i).queuePosition).isEqualTo(i);
            }
            while (!model.isEmpty()) {
                assertThat((Object) heap.peek()).isSameAs(model.poll());
                heap.removeAt(0);
            }
            assertThat((Object) heap.peek()).isNull();
        }
    }
}
