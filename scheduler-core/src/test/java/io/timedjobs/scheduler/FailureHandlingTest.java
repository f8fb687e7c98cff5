package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Where failures go, and why the pool never shrinks because of them. */
@Timeout(60)
class FailureHandlingTest {

    private final ConcurrentLinkedQueue<Throwable> handled = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Throwable> uncaught = new ConcurrentLinkedQueue<>();
    private final AtomicInteger threadsMade = new AtomicInteger();
    private LeaderFollowerScheduler scheduler;

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    private final ThreadFactory countingFactory = runnable -> {
        Thread thread = new Thread(runnable, "failure-test-" + threadsMade.incrementAndGet());
        thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        return thread;
    };

    /** A task given to execute() reports its failure to the error handler. */
    @Test
    void shouldReportExecuteFailureToErrorHandler() {
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .errorHandler(handled::add)
                .build();
        IllegalStateException boom = new IllegalStateException("boom");
        scheduler.execute(() -> {
            throw boom;
        });
        await().atMost(TestDelays.LONG).until(() -> handled.contains(boom));
        assertThat(scheduler.getFailedTaskCount()).isEqualTo(1);
    }

    /** A repeating task's failure reaches the handler; by default the task then stops. */
    @Test
    void shouldStopRepeatingTaskAfterFailureByDefault() {
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .errorHandler(handled::add)
                .build();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    throw new IllegalStateException("fails");
                },
                0,
                1,
                MILLISECONDS);
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("fails");
        assertThat(handled).hasSize(1);
    }

    /** With keepRepeatingAfterFailure, a failing repeating task keeps its schedule. */
    @Test
    void shouldKeepRepeatingAfterFailureWhenConfigured() {
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .errorHandler(handled::add)
                .keepRepeatingAfterFailure(true)
                .build();
        ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(
                () -> {
                    throw new IllegalStateException("fails again");
                },
                0,
                1,
                MILLISECONDS);
        await().atMost(TestDelays.LONG).until(() -> handled.size() >= 5);
        assertThat(future.isDone()).isFalse();
        assertThat(scheduler.getFailedTaskCount()).isGreaterThanOrEqualTo(5);
    }

    /** An error handler that throws stops the repeating task, whose future reports that exception. */
    @Test
    void shouldStopRepeatingTaskWhenHandlerThrows() {
        IllegalArgumentException fromHandler = new IllegalArgumentException("stop it");
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .keepRepeatingAfterFailure(true)
                .errorHandler(failure -> {
                    throw fromHandler;
                })
                .build();
        ScheduledFuture<?> future = scheduler.schedule(
                () -> {
                    throw new IllegalStateException("fails");
                },
                context -> context.clock().instant());
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(fromHandler);
    }

    /**
     * A worker killed by an Error (here: an error handler that rethrows what an execute() task
     * threw) is replaced, the Error reaches the uncaught-exception handler, and the pool keeps its
     * size.
     */
    @Test
    void shouldReplaceWorkerKilledByError() throws Exception {
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(2)
                .threadFactory(countingFactory)
                .errorHandler(failure -> {
                    throw (Error) failure;
                })
                .build();
        for (int i = 0; i < 3; i++) {
            scheduler.execute(() -> {
                throw new AssertionError("worker killer");
            });
        }
        await().atMost(TestDelays.LONG).until(() -> uncaught.size() == 3);
        await().atMost(TestDelays.LONG).until(() -> threadsMade.get() == 5 && scheduler.getPoolSize() == 2);
        assertThat(scheduler.submit(() -> "alive").get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("alive");
        assertThat(scheduler.getFailedTaskCount()).isEqualTo(3);
    }

    /** A listener that throws costs its worker, which is replaced like any other. */
    @Test
    void shouldReplaceWorkerWhenListenerThrows() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .threadFactory(countingFactory)
                .executionListener((lateness, duration, outcome) -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("listener bug");
                    }
                })
                .build();
        assertThat(scheduler.submit(() -> "first").get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("first");
        assertThat(scheduler.submit(() -> "second").get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("second");
        await().atMost(TestDelays.LONG).until(() -> threadsMade.get() == 2 && scheduler.getPoolSize() == 1);
        assertThat(uncaught).extracting(Throwable::getMessage).isEqualTo(List.of("listener bug"));
    }

    /** The default error handler logs; it never throws, so tasks keep their workers. */
    @Test
    void shouldLogWithDefaultHandler() {
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .threadFactory(countingFactory)
                .build();
        scheduler.execute(() -> {
            throw new IllegalStateException("logged, not lost");
        });
        await().atMost(TestDelays.LONG).until(() -> scheduler.getFailedTaskCount() == 1);
        assertThat(uncaught).isEmpty();
        assertThat(threadsMade).hasValue(1);
    }
}
