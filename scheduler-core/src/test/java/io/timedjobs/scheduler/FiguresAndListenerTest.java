package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The live figures metrics read, and the execution listener, checked with exact manual time. */
@Timeout(60)
class FiguresAndListenerTest {

    record Execution(long latenessNanos, long durationNanos, Outcome outcome) {}

    private final ManualTicker ticker = new ManualTicker();
    private final List<Execution> executions = Collections.synchronizedList(new ArrayList<>());
    private final LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder()
            .poolSize(1)
            .ticker(ticker)
            .errorHandler(failure -> {})
            .executionListener(
                    (lateness, duration, outcome) -> executions.add(new Execution(lateness, duration, outcome)))
            .build();

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** Queue depth, active workers, overdue time, completed, failed and rejected counts are exact. */
    @Test
    void shouldReportLiveFigures() throws Exception {
        assertThat(scheduler.getPoolSize()).isEqualTo(1); // started parked with the scheduler
        assertThat(scheduler.getCorePoolSize()).isEqualTo(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        scheduler.execute(() -> {
            started.countDown();
            ScheduledExecutorContractTest.awaitQuietly(release);
        });
        assertThat(started.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        scheduler.schedule(() -> {}, 1, SECONDS);
        scheduler.schedule(() -> {}, 2, SECONDS);
        scheduler.schedule(
                () -> {
                    throw new IllegalStateException();
                },
                3,
                SECONDS);
        assertThat(scheduler.getPoolSize()).isEqualTo(1);
        assertThat(scheduler.getActiveCount()).isEqualTo(1);
        assertThat(scheduler.getQueueSize()).isEqualTo(3);
        assertThat(scheduler.getOverdue(NANOSECONDS)).isZero();
        ticker.advance(5, SECONDS);
        assertThat(scheduler.getOverdue(SECONDS))
                .as("the task due at 1 s, now 5 s")
                .isEqualTo(4);
        release.countDown();
        await().atMost(TestDelays.LONG).until(() -> scheduler.getCompletedTaskCount() == 4);
        assertThat(scheduler.getQueueSize()).isZero();
        assertThat(scheduler.getOverdue(NANOSECONDS)).isZero();
        assertThat(scheduler.getFailedTaskCount()).isEqualTo(1);
        await().atMost(TestDelays.LONG).until(() -> scheduler.getActiveCount() == 0);
        scheduler.shutdown();
        assertThatThrownBy(() -> scheduler.execute(() -> {})).isInstanceOf(RejectedExecutionException.class);
        assertThat(scheduler.getRejectedTaskCount()).isEqualTo(1);
    }

    /** The listener sees each execution's lateness, duration and outcome. */
    @Test
    void shouldTellListenerLatenessDurationAndOutcome() {
        scheduler.schedule(() -> ticker.advance(1, SECONDS), 10, SECONDS);
        ticker.advance(12, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> executions.size() == 1);
        assertThat(executions.get(0))
                .isEqualTo(new Execution(SECONDS.toNanos(2), SECONDS.toNanos(1), Outcome.SUCCEEDED));

        scheduler.schedule(
                () -> {
                    throw new IllegalStateException("fails");
                },
                0,
                SECONDS);
        await().atMost(TestDelays.LONG).until(() -> executions.size() == 2);
        assertThat(executions.get(1)).isEqualTo(new Execution(0, 0, Outcome.FAILED));
    }

    /** cancelTasksDueAfter drops waiting tasks due after the deadline, in the heap and far ones alike. */
    @Test
    void shouldCancelTasksDueAfterDeadline() throws Exception {
        var soon = scheduler.schedule(() -> "soon", 1, SECONDS);
        var later = scheduler.schedule(() -> "later", 10, SECONDS);
        var far = scheduler.schedule(() -> "far", 2, java.util.concurrent.TimeUnit.HOURS);
        var repeating = scheduler.scheduleAtFixedRate(() -> {}, 30, 30, SECONDS);
        assertThat(scheduler.cancelTasksDueAfter(5, SECONDS)).isEqualTo(3);
        assertThat(later.isCancelled()).isTrue();
        assertThat(far.isCancelled()).isTrue();
        assertThat(repeating.isCancelled()).isTrue();
        assertThat(scheduler.getQueueSize()).isEqualTo(1);
        ticker.advance(1, SECONDS);
        assertThat(soon.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo("soon");
    }

    /** Every execution of a repeating task is one event; cancelled tasks produce none. */
    @Test
    void shouldReportOneEventPerExecution() {
        scheduler.schedule(() -> {}, 1, SECONDS).cancel(false);
        scheduler.scheduleAtFixedRate(() -> {}, 0, 1, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> executions.size() == 1);
        for (int i = 2; i <= 5; i++) {
            ticker.advance(1, SECONDS);
            int n = i;
            await().atMost(TestDelays.LONG).until(() -> executions.size() == n);
        }
        assertThat(executions).allMatch(e -> e.latenessNanos() == 0 && e.outcome() == Outcome.SUCCEEDED);
        assertThat(scheduler.getCompletedTaskCount()).isEqualTo(5);
    }

    /** The listener is told which work ran: the Runnable or Callable as submitted, every run of a repeating one. */
    @Test
    void shouldTellListenerWhichWorkRan() throws Exception {
        List<Object> works = Collections.synchronizedList(new ArrayList<>());
        LeaderFollowerScheduler withWork = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .ticker(ticker)
                .executionListener(new ExecutionListener() {
                    @Override
                    public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {
                        throw new AssertionError("the scheduler calls the method with the work");
                    }

                    @Override
                    public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
                        works.add(work);
                    }
                })
                .build();
        try {
            Runnable repeating = () -> {};
            java.util.concurrent.Callable<String> callable = () -> "done";
            withWork.scheduleAtFixedRate(repeating, 0, 1, SECONDS);
            await().atMost(TestDelays.LONG).until(() -> works.size() == 1);
            ticker.advance(1, SECONDS);
            await().atMost(TestDelays.LONG).until(() -> works.size() == 2);
            assertThat(withWork.schedule(callable, 0, SECONDS).get(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .isEqualTo("done");
            await().atMost(TestDelays.LONG).until(() -> works.size() == 3);
            assertThat(works).containsExactly(repeating, repeating, callable);
        } finally {
            withWork.shutdownNow();
            assertThat(withWork.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .isTrue();
        }
    }
}
