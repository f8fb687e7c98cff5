package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ExecutionListener;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One-shot tasks reach the engine as they were scheduled (decorated, if a decorator is set), with
 * no object of the adapter around them; the pause, the error handler and the job's figures still
 * apply, through the engine's run gate and one-shot error handler.
 */
class OneShotHandoffTest {

    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private final ManualTicker ticker = new ManualTicker(0L, ORIGIN);

    /** The work of each execution, as the engine reports it to its listeners. */
    private final List<Object> executed = new CopyOnWriteArrayList<>();

    private final LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();

    OneShotHandoffTest() {
        scheduler.setPoolSize(2);
        scheduler.setTicker(ticker);
        scheduler.setThreadNamePrefix("handoff-test-");
        scheduler.addExecutionListener(new ExecutionListener() {
            @Override
            public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {}

            @Override
            public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
                executed.add(work);
            }
        });
        scheduler.initialize();
    }

    @AfterEach
    void shutDown() {
        scheduler.shutdown();
    }

    private LeaderFollowerScheduler engine() {
        return scheduler.getScheduledExecutor();
    }

    /** The engine runs the very task that was scheduled. */
    @Test
    void shouldHandOneShotTaskToEngineAsItIs() throws Exception {
        Runnable task = () -> {};

        scheduler.schedule(task, ORIGIN).get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);

        await().atMost(TestDelays.LONG).until(() -> executed.size() == 1);
        assertThat(executed.get(0)).isSameAs(task);
    }

    /** With a decorator, the engine runs what the decorator returned, decorated once. */
    @Test
    void shouldHandDecoratedTaskToEngine() throws Exception {
        AtomicInteger decorations = new AtomicInteger();
        AtomicInteger decoratedRuns = new AtomicInteger();
        List<Runnable> decorated = new CopyOnWriteArrayList<>();
        scheduler.setTaskDecorator(task -> {
            decorations.incrementAndGet();
            Runnable around = () -> {
                decoratedRuns.incrementAndGet();
                task.run();
            };
            decorated.add(around);
            return around;
        });
        AtomicInteger runs = new AtomicInteger();

        scheduler.schedule(runs::incrementAndGet, ORIGIN).get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);

        await().atMost(TestDelays.LONG).until(() -> executed.size() == 1);
        assertThat(executed.get(0)).isSameAs(decorated.get(0));
        assertThat(decorations).hasValue(1);
        assertThat(decoratedRuns).hasValue(1);
        assertThat(runs).hasValue(1);
    }

    /** A one-shot task scheduled while the scheduler is stopped waits, counted nowhere, for start(). */
    @Test
    void shouldHoldOneShotScheduledWhileStoppedUntilStart() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        scheduler.stop();

        ScheduledFuture<?> future = scheduler.schedule(runs::incrementAndGet, ORIGIN);
        // a worker holds the task at the run gate: active, but the task has not run
        await().atMost(TestDelays.LONG).until(() -> engine().getActiveCount() == 1);
        assertThat(runs).hasValue(0);
        assertThat(future.isDone()).isFalse();
        assertThat(engine().getCompletedTaskCount()).isZero();

        scheduler.start();

        assertThat(future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isNull();
        assertThat(runs).hasValue(1);
        await().atMost(TestDelays.LONG).until(() -> engine().getCompletedTaskCount() == 1);
    }

    /** A one-shot task cancelled with interruption while it waits at the gate never runs. */
    @Test
    void shouldNotRunOneShotCancelledWhileHeldAtGate() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        scheduler.stop();
        ScheduledFuture<?> future = scheduler.schedule(runs::incrementAndGet, ORIGIN);
        await().atMost(TestDelays.LONG).until(() -> engine().getActiveCount() == 1);

        assertThat(future.cancel(true)).isTrue();

        await().atMost(TestDelays.LONG).until(() -> engine().getActiveCount() == 0);
        scheduler.start();
        ScheduledFuture<?> next = scheduler.schedule(runs::incrementAndGet, ORIGIN);
        assertThat(next.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS)).isNull();
        assertThat(runs).hasValue(1);
        assertThat(future.isCancelled()).isTrue();
        // The engine counts a run after it has completed the run's future.
        await().atMost(TestDelays.LONG)
                .untilAsserted(
                        () -> assertThat(engine().getCompletedTaskCount()).isEqualTo(1));
    }

    /** stop(callback) does not wait for a one-shot task held at the gate: it has not started. */
    @Test
    void shouldCallStopCallbackWhileOneShotWaitsAtGate() throws Exception {
        scheduler.stop();
        ScheduledFuture<?> future = scheduler.schedule(() -> {}, ORIGIN);
        await().atMost(TestDelays.LONG).until(() -> engine().getActiveCount() == 1);
        CountDownLatch stopped = new CountDownLatch(1);

        scheduler.stop(stopped::countDown);

        assertThat(stopped.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        assertThat(future.isDone()).isFalse();
        scheduler.start();
        assertThat(future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isNull();
    }

    /** A handler that throws completes the future with what it threw; the execution counts as failed. */
    @Test
    void shouldCompleteOneShotWithWhatTheErrorHandlerThrows() {
        scheduler.setErrorHandler(failure -> {
            throw new IllegalArgumentException("handler gives up", failure);
        });

        ScheduledFuture<?> future = scheduler.schedule(
                () -> {
                    throw new IllegalStateException("boom");
                },
                ORIGIN);

        await().atMost(TestDelays.LONG).until(future::isDone);
        assertThatThrownBy(future::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .hasMessage("handler gives up")
                .hasRootCauseMessage("boom");
        await().atMost(TestDelays.LONG).until(() -> engine().getFailedTaskCount() == 1);
    }

    /** A handler that returns completes the future with null; the execution still counts as failed. */
    @Test
    void shouldCountOneShotFailureTheErrorHandlerTook() throws Exception {
        List<Throwable> handled = new CopyOnWriteArrayList<>();
        scheduler.setErrorHandler(handled::add);

        ScheduledFuture<?> future = scheduler.schedule(
                () -> {
                    throw new IllegalStateException("boom");
                },
                ORIGIN);

        assertThat(future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isNull();
        assertThat(handled).singleElement().extracting(Throwable::getMessage).isEqualTo("boom");
        await().atMost(TestDelays.LONG).until(() -> engine().getFailedTaskCount() == 1);
    }

    /** The error handler is read when the task fails, not when it was scheduled. */
    @Test
    void shouldUseErrorHandlerSetAfterScheduling() throws Exception {
        ScheduledFuture<?> future = scheduler.schedule(
                () -> {
                    throw new IllegalStateException("boom");
                },
                ORIGIN.plusSeconds(1));
        List<Throwable> handled = new CopyOnWriteArrayList<>();
        scheduler.setErrorHandler(handled::add);

        ticker.advance(Duration.ofSeconds(1));

        assertThat(future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isNull();
        assertThat(handled).hasSize(1);
    }

    /**
     * Tasks given to the engine directly pause with the scheduler too, as every task of Spring's
     * ThreadPoolTaskScheduler does.
     */
    @Test
    void shouldHoldTasksGivenToEngineWhileStopped() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        scheduler.stop();

        ScheduledFuture<?> future = engine().schedule(runs::incrementAndGet, 0, TimeUnit.SECONDS);
        await().atMost(TestDelays.LONG).until(() -> engine().getActiveCount() == 1);
        assertThat(runs).hasValue(0);

        scheduler.start();
        future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(runs).hasValue(1);
    }

    /** A paused job's runs are skipped by the gate: the engine neither counts nor reports them. */
    @Test
    void shouldSkipPausedJobWithoutCountingIt() {
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> future =
                scheduler.scheduleAtFixedRate(runs::incrementAndGet, ORIGIN.plusSeconds(1), Duration.ofSeconds(1));
        TrackedJob job = scheduler.getJobRegistry().jobs().get(0);
        job.pause();

        ticker.advance(Duration.ofSeconds(1));
        // the skipped run keeps the schedule: the next one is a period later
        await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.MILLISECONDS) == 1_000);

        assertThat(runs).hasValue(0);
        assertThat(engine().getCompletedTaskCount()).isZero();
        assertThat(executed).isEmpty();
        assertThat(job.snapshot().runs()).isZero();
    }
}
