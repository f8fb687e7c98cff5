package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The three ways a one-shot task's failure can end: in its future, suppressed, or replaced. */
@Timeout(60)
class OneShotErrorHandlerTest {

    private final ConcurrentLinkedQueue<Throwable> handled = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Throwable> oneShotHandled = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> handlerThreads = new ConcurrentLinkedQueue<>();
    private final IllegalStateException boom = new IllegalStateException("boom");
    private LeaderFollowerScheduler scheduler;

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    private LeaderFollowerScheduler.Builder builder() {
        return LeaderFollowerScheduler.builder()
                .poolSize(1)
                .threadNamePrefix("one-shot-test-")
                .errorHandler(handled::add);
    }

    private Runnable failing() {
        return () -> {
            throw boom;
        };
    }

    /** Without the option the future holds the failure and no handler sees it, as with the JDK. */
    @Test
    void shouldLeaveFailureToFutureWithoutHandler() {
        scheduler = builder().build();
        ScheduledFuture<?> future = scheduler.schedule(failing(), 0, MILLISECONDS);
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(boom);
        await().atMost(TestDelays.LONG).until(() -> scheduler.getFailedTaskCount() == 1);
        assertThat(handled).isEmpty();
    }

    /**
     * A handler that returns suppresses the failure: the future completes normally with null, for
     * schedule and submit alike; the handler ran on the worker, and the execution counts as failed.
     */
    @Test
    void shouldCompleteNormallyWhenHandlerReturns() throws Exception {
        scheduler = builder()
                .oneShotErrorHandler(failure -> {
                    handlerThreads.add(Thread.currentThread().getName());
                    oneShotHandled.add(failure);
                })
                .build();
        ScheduledFuture<?> scheduled = scheduler.schedule(failing(), 0, MILLISECONDS);
        Future<String> submitted = scheduler.submit(() -> {
            throw boom;
        });
        Future<?> submittedRunnable = scheduler.submit(failing());

        assertThat(scheduled.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(submitted.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(submittedRunnable.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isNull();
        assertThat(oneShotHandled).containsExactly(boom, boom, boom);
        assertThat(handlerThreads).allMatch(name -> name.startsWith("one-shot-test-"));
        await().atMost(TestDelays.LONG).until(() -> scheduler.getFailedTaskCount() == 3);
        assertThat(handled).as("the general error handler is not involved").isEmpty();
    }

    /** A handler that throws completes the future with what it threw. */
    @Test
    void shouldCompleteWithHandlersFailureWhenHandlerThrows() {
        IllegalArgumentException replaced = new IllegalArgumentException("from handler");
        scheduler = builder()
                .oneShotErrorHandler(failure -> {
                    throw replaced;
                })
                .build();
        ScheduledFuture<?> future = scheduler.schedule(failing(), 0, MILLISECONDS);
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(replaced);
        // The worker survives: the next task runs on it.
        assertThat(scheduler.submit(() -> "next"))
                .succeedsWithin(TestDelays.LONG)
                .isEqualTo("next");
    }

    /** Tasks given to execute() and repeating tasks still go to the general error handler. */
    @Test
    void shouldLeaveExecuteAndRepeatingFailuresToErrorHandler() {
        scheduler = builder().oneShotErrorHandler(oneShotHandled::add).build();
        scheduler.execute(failing());
        ScheduledFuture<?> repeating = scheduler.scheduleAtFixedRate(failing(), 0, 1, MILLISECONDS);
        assertThatThrownBy(() -> repeating.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(boom);
        await().atMost(TestDelays.LONG).until(() -> handled.size() == 2);
        assertThat(oneShotHandled).isEmpty();
    }
}
