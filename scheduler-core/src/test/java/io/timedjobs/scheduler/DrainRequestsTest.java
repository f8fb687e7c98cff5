package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The queue's lock and its requests, driven from one thread by seeded random operations against
 * a model of what is staged, queued and requested.
 */
class DrainRequestsTest {

    /**
     * A drain or removal asked for (or a task staged with no plan in force) while the lock is free
     * happens at once; asked for while it is
     * held, it is left as a request that the holder performs when it releases the lock, and not
     * before. Drains keep the order tasks were staged in and drop tasks cancelled on the stripe;
     * removals take tasks out of the queue, draining the stripes when one is still staged; every
     * release publishes the figures.
     */
    @Test
    void shouldPerformRequestsOnReleaseAndAtOnceWhenFree() {
        SplittableRandom random = new SplittableRandom(ModelTasks.SEED);
        for (int round = 0; round < 100; round++) {
            HandoffStripes stripes = new HandoffStripes(1);
            DueOrder order = new DueOrder(0L);
            LeaderFollowerDelayQueue queue = new LeaderFollowerDelayQueue(() -> 0L, false, stripes, order);
            List<ScheduledTask<?>> made = new ArrayList<>(); // the order numbers those it takes in

            Model model = new Model();
            for (int op = 0; op < 300; op++) {
                int choice = random.nextInt(10);
                if (choice < 4) {
                    ScheduledTask<?> t = ModelTasks.task(random.nextLong(1L << 40), -1);
                    made.add(t);
                    if (random.nextBoolean()) {
                        assertThat(stripes.stage(t)).isPositive();
                        model.staged.add(t);
                    } else { // staged with no plan in force: moved into the queue now, or on request
                        assertThat(queue.stage(t, t.time)).isTrue();
                        model.staged.add(t);
                        if (model.held) {
                            model.drainRequested = true;
                        } else {
                            model.drainPending();
                        }
                    }
                } else if (choice < 6) {
                    if (model.held) {
                        queue.release();
                        model.release();
                    } else {
                        queue.acquire();
                        model.held = true;
                    }
                } else if (choice < 8) {
                    queue.drainNow(false);
                    if (model.held) {
                        model.drainRequested = true;
                    } else {
                        model.drainPending();
                    }
                } else {
                    List<ScheduledTask<?>> candidates = random.nextBoolean() ? model.staged : model.queued;
                    if (candidates.isEmpty()) {
                        continue;
                    }
                    ScheduledTask<?> t = candidates.get(random.nextInt(candidates.size()));
                    t.complete(ScheduledTask.CANCELLED, null);
                    stripes.pushRemoval(t);
                    model.removals.add(t);
                    queue.drainNow(true);
                    if (model.held) {
                        model.removalsRequested = true;
                    } else {
                        model.drainRemovals();
                    }
                }
                assertThat(queue.isLocked()).isEqualTo(model.held);
                assertThat(queue.drainRequested()).isEqualTo(model.drainRequested);
                List<ScheduledTask<?>> inserted = inserted(made);
                assertThat(inserted).containsExactlyElementsOf(model.inserted);
                assertThat(order.size()).isEqualTo(model.queued.size());
                if (!model.held) {
                    assertThat(queue.size()).isEqualTo(order.size() + stripes.depth());
                }
            }
        }
    }

    /** Returns the tasks the due order took in, in the order it took them: by the number it gave. */
    private static List<ScheduledTask<?>> inserted(List<ScheduledTask<?>> made) {
        return made.stream()
                .filter(t -> t.sequence >= 0)
                .sorted(Comparator.comparingInt(t -> t.sequence))
                .toList();
    }

    /** What the lock should have done: the stripe's tasks, the queue's, and the requests left. */
    private static final class Model {
        final List<ScheduledTask<?>> staged = new ArrayList<>();
        final List<ScheduledTask<?>> queued = new ArrayList<>();
        final List<ScheduledTask<?>> inserted = new ArrayList<>();
        final List<ScheduledTask<?>> removals = new ArrayList<>();
        boolean held;
        boolean drainRequested;
        boolean removalsRequested;

        void release() {
            held = false;
            if (drainRequested) {
                drainPending();
            } else if (removalsRequested) {
                drainRemovals();
            }
        }

        void drainPending() {
            drainRequested = false;
            removalsRequested = false;
            for (ScheduledTask<?> t : staged) {
                if (t.isNew()) { // cancelled on the stripe: dropped
                    queued.add(t);
                    inserted.add(t);
                }
            }
            staged.clear();
            queued.removeAll(removals);
            removals.clear();
        }

        void drainRemovals() {
            removalsRequested = false;
            boolean stillStaged = removals.stream().anyMatch(staged::contains);
            queued.removeAll(removals);
            removals.clear();
            if (stillStaged) {
                drainPending();
            }
        }
    }
}
