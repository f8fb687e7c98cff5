package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Cancelled tasks leave the queue at once and keep nothing alive. */
@Timeout(60)
class CancellationTest {

    private final LeaderFollowerScheduler scheduler =
            LeaderFollowerScheduler.builder().poolSize(2).build();

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** Queue depth drops the moment a task is cancelled, not when it would have been due. */
    @Test
    void shouldDropQueueDepthAtOnce() {
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            futures.add(
                    i % 2 == 0
                            ? scheduler.schedule(() -> {}, 1 + i, HOURS)
                            : scheduler.scheduleAtFixedRate(() -> {}, 1 + i, 1, HOURS));
        }
        assertThat(scheduler.getQueueSize()).isEqualTo(1_000);
        for (int i = 0; i < 1_000; i += 3) {
            assertThat(futures.get(i).cancel(false)).isTrue();
        }
        assertThat(scheduler.getQueueSize()).isEqualTo(1_000 - 334);
        futures.forEach(f -> f.cancel(true));
        assertThat(scheduler.getQueueSize()).isZero();
    }

    /** A cancelled task and the Runnable it wrapped become unreachable, checked by GC. */
    @Test
    void shouldReleaseCancelledTaskAndItsRunnable() {
        List<WeakReference<Object>> refs = scheduleAndCancel();
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            System.gc();
            assertThat(refs).allMatch(ref -> ref.get() == null, "cleared");
        });
    }

    private List<WeakReference<Object>> scheduleAndCancel() {
        Runnable oneShot = new Payload();
        Runnable periodic = new Payload();
        ScheduledFuture<?> oneShotFuture = scheduler.schedule(oneShot, 1, HOURS);
        ScheduledFuture<?> periodicFuture = scheduler.scheduleWithFixedDelay(periodic, 1, 1, HOURS);
        ScheduledFuture<?> recurringFuture =
                scheduler.schedule(oneShot, ctx -> ctx.clock().instant().plusSeconds(3600));
        // A task that stays queued keeps its neighbours company, so the heap is not simply empty.
        scheduler.schedule(() -> {}, 2, HOURS);
        oneShotFuture.cancel(false);
        periodicFuture.cancel(true);
        recurringFuture.cancel(false);
        assertThat(scheduler.getQueueSize()).isEqualTo(1);
        return List.of(
                new WeakReference<>(oneShot),
                new WeakReference<>(periodic),
                new WeakReference<>(oneShotFuture),
                new WeakReference<>(periodicFuture),
                new WeakReference<>(recurringFuture));
    }

    /**
     * Tasks that are still waiting to be handed over to the queue (due after the sleeping leader's
     * next wake-up) leave at once too, whether the thread that scheduled them cancels them or
     * another one does, and nothing keeps them.
     */
    @Test
    void shouldReleaseTasksCancelledBeforeTheyReachedTheQueue() throws Exception {
        scheduler.schedule(() -> {}, 1, HOURS);
        await().atMost(TestDelays.LONG).until(() -> scheduler.pool().queue().leader() != null);
        List<ScheduledFuture<?>> others = new ArrayList<>();
        java.util.concurrent.FutureTask<List<WeakReference<Object>>> producer =
                new java.util.concurrent.FutureTask<>(() -> scheduleAndCancelFar(others));
        new Thread(producer).start();
        List<WeakReference<Object>> refs = producer.get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(scheduler.getQueueSize()).isEqualTo(1 + others.size());
        others.forEach(f -> assertThat(f.cancel(false)).isTrue()); // from another thread
        assertThat(scheduler.getQueueSize()).isEqualTo(1);
        others.clear();
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            System.gc();
            assertThat(refs).allMatch(ref -> ref.get() == null, "cleared");
        });
    }

    /** Schedules 200 tasks two hours out; cancels every other one here and keeps the rest. */
    private List<WeakReference<Object>> scheduleAndCancelFar(List<ScheduledFuture<?>> kept) {
        List<WeakReference<Object>> refs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ScheduledFuture<?> future =
                    scheduler.schedule(new Payload(), 2 * 60 + i, java.util.concurrent.TimeUnit.MINUTES);
            if (i % 2 == 0) {
                assertThat(future.cancel(false)).isTrue();
                assertThat(scheduler.getQueueSize()).isEqualTo(1 + kept.size());
            } else {
                kept.add(future);
            }
            refs.add(new WeakReference<>(future));
        }
        return refs;
    }

    /** A completed task drops its Runnable even while the caller keeps the future. */
    @Test
    void shouldReleaseRunnableOfCompletedTask() throws Exception {
        WeakReference<Object> runnable = runAndKeepFuture();
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            System.gc();
            assertThat(runnable.get()).isNull();
        });
        assertThat(kept.get()).isNull();
    }

    private ScheduledFuture<?> kept;

    private WeakReference<Object> runAndKeepFuture() throws Exception {
        Runnable payload = new Payload();
        kept = scheduler.schedule(payload, 0, MILLISECONDS);
        kept.get(TestDelays.LONG.toMillis(), MILLISECONDS);
        return new WeakReference<>(payload);
    }

    private static final class Payload implements Runnable {
        @SuppressWarnings("unused")
        private final byte[] weight = new byte[64 * 1024];

        @Override
        public void run() {}
    }
}
