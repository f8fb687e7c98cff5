package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The timing wheel, with the heap and the run it moves tasks into, against a TreeSet. */
class TimingWheelTest {

    private static final long BUCKET = 1L << TimingWheel.SHIFT;

    /**
     * Adds, removals of arbitrary tasks (some already gone) and time moving in random steps, with
     * ticks near Long.MAX_VALUE that wrap around: the three structures together hold exactly the
     * model's tasks; after each advance no task left in the wheel needs attention yet, and the
     * wheel's earliest time is exact; between advances it stays a lower bound; the next move time
     * is exact; and once all is due, the heads of the heap and the run give the model's order.
     */
    @Test
    void shouldMatchTreeSetUnderRandomOperations() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 60; round++) {
            long now = ModelTasks.base(random);
            TimingWheel wheel = new TimingWheel(now);
            TaskHeap heap = new TaskHeap();
            SortedRun run = new SortedRun();
            TreeSet<ScheduledTask<?>> model = new TreeSet<>(ModelTasks.DUE_ORDER);
            List<ScheduledTask<?>> known = new ArrayList<>();
            int sequence = random.nextInt();
            for (int op = 0; op < 600; op++) {
                int choice = random.nextInt(10);
                if (choice < 5) {
                    long delay = switch (random.nextInt(4)) {
                        case 0 -> random.nextLong(2 * BUCKET);
                        case 1 -> BUCKET * random.nextInt(40); // bucket edges, many equal times
                        case 2 -> random.nextLong(TimingWheel.SIZE * BUCKET + BUCKET); // to beyond reach
                        default -> random.nextLong(60 * BUCKET);
                    };
                    ScheduledTask<?> t = ModelTasks.task(now + delay, sequence++);
                    long bucket = wheel.bucketOf(t.time);
                    if (wheel.holds(bucket)) {
                        wheel.add(t, bucket);
                    } else {
                        heap.add(t);
                    }
                    model.add(t);
                    known.add(t);
                } else if (choice < 7 && !known.isEmpty()) {
                    ScheduledTask<?> t = known.get(random.nextInt(known.size()));
                    boolean removed = wheel.remove(t) || heap.remove(t) || run.remove(t);
                    assertThat(removed).isEqualTo(model.remove(t));
                } else {
                    long before = now;
                    now += random.nextInt(4) == 0 ? random.nextLong(30 * BUCKET) : random.nextLong(BUCKET);
                    wheel.advance(now, into(wheel, heap, run));
                    boolean moved = wheel.attentionTime(now) != wheel.attentionTime(before);
                    long exact = Long.MAX_VALUE;
                    boolean inWheel = false;
                    for (ScheduledTask<?> t : model) {
                        if (QueuePosition.inWheel(t.queuePosition)) {
                            exact = inWheel && exact - t.time < 0 ? exact : t.time;
                            inWheel = true;
                        }
                    }
                    if (inWheel && moved) {
                        assertThat(wheel.earliest())
                                .as("exact once the wheel moved on")
                                .isEqualTo(exact);
                    }
                    for (ScheduledTask<?> t : model) {
                        if (QueuePosition.inWheel(t.queuePosition)) {
                            assertThat(wheel.attentionTime(t.time) - now)
                                    .as("attention of a task left in the wheel")
                                    .isPositive();
                        }
                    }
                }
                assertThat(wheel.size() + heap.size() + run.size()).isEqualTo(model.size());
                checkWheelFigures(wheel, model);
            }
            now += (TimingWheel.SIZE + 2) * BUCKET;
            wheel.advance(now, into(wheel, heap, run));
            assertThat(wheel.size()).isZero();
            while (!model.isEmpty()) {
                ScheduledTask<?> h = heap.peek();
                ScheduledTask<?> r = run.first();
                ScheduledTask<?> first = r == null || (h != null && ScheduledTask.isBefore(h, r)) ? h : r;
                assertThat((Object) first).isSameAs(model.pollFirst());
                if (first == h) {
                    heap.removeAt(0);
                } else {
                    run.poll();
                }
            }
        }
    }

    /**
     * Where the moved buckets go in this test: sorted onto the run when they come after it, else
     * into the heap, as the due order does (which decides that in the queue).
     */
    private static TimingWheel.Sink into(TimingWheel wheel, TaskHeap heap, SortedRun run) {
        return (tasks, n, inOrder) -> {
            if (inOrder) {
                wheel.sortBucket(tasks, n);
                ScheduledTask<?> last = run.last();
                if (last == null || ScheduledTask.isBefore(last, tasks[0])) {
                    run.append(tasks, n);
                    return;
                }
            }
            for (int i = 0; i < n; i++) {
                heap.add(tasks[i]);
                tasks[i] = null;
            }
        };
    }

    private static void checkWheelFigures(TimingWheel wheel, TreeSet<ScheduledTask<?>> model) {
        if (wheel.size() == 0) {
            return;
        }
        ScheduledTask<?> earliest = null;
        long nextMove = 0;
        boolean any = false;
        for (ScheduledTask<?> t : model) {
            if (QueuePosition.inWheel(t.queuePosition)) {
                if (!any || t.time - earliest.time < 0) {
                    earliest = t;
                }
                long move = wheel.attentionTime(t.time);
                nextMove = !any || move - nextMove < 0 ? move : nextMove;
                any = true;
            }
        }
        assertThat(any).isTrue();
        assertThat(wheel.earliest() - earliest.time).as("a lower bound").isNotPositive();
        assertThat(wheel.nextMoveTime()).isEqualTo(nextMove);
    }
}
