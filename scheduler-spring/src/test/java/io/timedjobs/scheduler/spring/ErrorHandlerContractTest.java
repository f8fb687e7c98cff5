package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.ErrorHandler;

/**
 * What a task's failure does, checked against Spring's own {@code ThreadPoolTaskScheduler} as the
 * reference: each scenario runs on both, with the same {@link ErrorHandler} or none.
 */
class ErrorHandlerContractTest {

    private final List<Runnable> shutdowns = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() {
        shutdowns.forEach(Runnable::run);
    }

    static Stream<Arguments> schedulers() {
        return Stream.of(Arguments.of("ThreadPoolTaskScheduler"), Arguments.of("LeaderFollowerTaskScheduler"));
    }

    private TaskScheduler scheduler(String kind, @Nullable ErrorHandler handler) {
        if (kind.equals("ThreadPoolTaskScheduler")) {
            ThreadPoolTaskScheduler reference = new ThreadPoolTaskScheduler();
            reference.setPoolSize(2);
            reference.setThreadNamePrefix("reference-");
            if (handler != null) {
                reference.setErrorHandler(handler);
            }
            reference.initialize();
            shutdowns.add(reference::shutdown);
            return reference;
        }
        LeaderFollowerTaskScheduler ours = new LeaderFollowerTaskScheduler();
        ours.setPoolSize(2);
        ours.setThreadNamePrefix("contract-");
        if (handler != null) {
            ours.setErrorHandler(handler);
        }
        ours.initialize();
        shutdowns.add(ours::shutdown);
        return ours;
    }

    private static Runnable failing(String message) {
        return () -> {
            throw new IllegalStateException(message);
        };
    }

    /** Without an error handler, a one-shot failure reaches the task's future. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldCompleteOneShotWithFailureByDefault(String kind) {
        TaskScheduler scheduler = scheduler(kind, null);

        ScheduledFuture<?> future = scheduler.schedule(failing("boom"), Instant.now());

        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
    }

    /** An error handler that returns takes the one-shot failure: the future completes with null. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldCompleteOneShotNormallyWhenHandlerReturns(String kind) throws Exception {
        List<Throwable> handled = new CopyOnWriteArrayList<>();
        TaskScheduler scheduler = scheduler(kind, handled::add);

        ScheduledFuture<?> future = scheduler.schedule(failing("boom"), Instant.now());

        assertThat(future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isNull();
        assertThat(handled).singleElement().extracting(Throwable::getMessage).isEqualTo("boom");
    }

    /** An error handler that throws completes the one-shot future with what it threw. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldCompleteOneShotWithWhatTheHandlerThrows(String kind) {
        TaskScheduler scheduler = scheduler(kind, failure -> {
            throw new IllegalArgumentException("handler gives up", failure);
        });

        ScheduledFuture<?> future = scheduler.schedule(failing("boom"), Instant.now());

        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("handler gives up")
                .hasRootCauseMessage("boom");
    }

    /** Without an error handler, a repeating task that throws keeps its schedule. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldKeepRepeatingAfterFailureByDefault(String kind) {
        TaskScheduler scheduler = scheduler(kind, null);
        AtomicInteger runs = new AtomicInteger();

        ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(
                () -> {
                    runs.incrementAndGet();
                    throw new IllegalStateException("boom");
                },
                Duration.ofMillis(1));

        await().atMost(TestDelays.LONG).until(() -> runs.get() >= 3);
        assertThat(future.isDone()).isFalse();
        future.cancel(false);
    }

    /** An error handler that throws ends the repeating task, whose future holds what it threw. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("schedulers")
    void shouldEndRepeatingTaskWhenHandlerThrows(String kind) {
        AtomicInteger runs = new AtomicInteger();
        TaskScheduler scheduler = scheduler(kind, failure -> {
            throw new IllegalArgumentException("handler gives up", failure);
        });

        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    runs.incrementAndGet();
                    throw new IllegalStateException("boom");
                },
                Duration.ofMillis(1));

        await().atMost(TestDelays.LONG).until(future::isDone);
        assertThatThrownBy(future::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .hasMessage("handler gives up");
        assertThat(runs).hasValue(1);
    }
}
