package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The figures for meters add up every place a task can be, and never wait for the lock holder. */
class QueueFiguresTest {

    /**
     * Size counts the published tasks, the batch's unclaimed ones and the stripes' staged ones
     * less the removals waiting; lateness is measured from the earliest of them; and a reading
     * made while the figures are moving returns after bounded retries with what it read.
     */
    @Test
    void shouldAddUpEveryPlaceAndReturnWhileMoving() {
        QueueFigures figures = new QueueFigures();
        DueOrder order = new DueOrder(0L);
        HandoffStripes stripes = new HandoffStripes(1);
        order.add(ModelTasks.task(1_000L, 0));
        order.add(ModelTasks.task(2_000L, 0));
        stripes.stage(ModelTasks.task(500L, 0));
        stripes.stage(ModelTasks.task(600L, 0));
        stripes.pushRemoval(ModelTasks.task(0L, 0));
        ScheduledTask<?> batched = ModelTasks.task(800L, 0);
        ReadyBatch batch = new ReadyBatch(new ScheduledTask<?>[] {batched}, 1);

        figures.moving();
        figures.publish(order);
        assertThat(figures.size(stripes, () -> batch)).isEqualTo(2 + 1 + 2 - 1);
        assertThat(figures.overdueNanos(1_500L, () -> batch)).isEqualTo(700L);
        assertThat(figures.overdueNanos(1_500L, () -> null)).isEqualTo(500L);
        assertThat(figures.overdueNanos(900L, () -> null)).isZero();

        figures.moving(); // a lock holder that never lets go
        assertThat(figures.size(stripes, () -> null)).isEqualTo(2 + 2 - 1);
    }
}
