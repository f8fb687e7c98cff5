package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.ObservationRegistry;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.spring.ReactiveScheduledMethod;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The run of a reactive method's fire: it lasts as long as the publisher, and ends as it ends. */
class PublisherRunTest {

    /** Stands in for a bean's reactive {@code @Scheduled} method. */
    static class Jobs {
        Mono<Void> refresh() {
            return Mono.empty();
        }
    }

    private static PublisherRun run(Publisher<?> publisher) throws NoSuchMethodException {
        Jobs target = new Jobs();
        Method method = Jobs.class.getDeclaredMethod("refresh");
        return new PublisherRun(
                new ReactiveScheduledMethod(
                        target,
                        method,
                        publisher,
                        () -> ObservationRegistry.NOOP,
                        () -> new ScheduledTaskObservationContext(target, method)),
                null);
    }

    /** A run returns only once its publisher has completed, with the fire in the publisher's Reactor Context. */
    @Test
    void shouldReturnOnceThePublisherCompletes() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Object> seen = new AtomicReference<>();
        Instant fire = Instant.parse("2026-01-01T00:00:00Z");
        // the publisher waits for the release on another thread, and completes there
        PublisherRun run = run(Mono.deferContextual(context -> {
            seen.set(context.getOrDefault(ClusteredJobs.FIRE_CONTEXT_KEY, null));
            return Mono.fromCallable(() -> release.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                    .subscribeOn(Schedulers.boundedElastic());
        }));
        CountDownLatch returned = new CountDownLatch(1);
        Thread runner = new Thread(() -> {
            CurrentClusteredRun.run("jobs.refresh", fire, false, run);
            returned.countDown();
        });
        runner.start();
        assertThat(returned.await(TestDelays.SMALL_WINDOW.toMillis(), TimeUnit.MILLISECONDS))
                .as("returned before the publisher completed")
                .isFalse();
        release.countDown();
        assertThat(returned.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        assertThat(seen.get()).isEqualTo(fire);
    }

    /** A publisher's checked error fails the run, and the history shows that error, not a wrapper. */
    @Test
    void shouldFailWithThePublishersError() throws Exception {
        PublisherRun run = run(Mono.error(new IOException("disk gone")));
        assertThatThrownBy(run::run)
                .isInstanceOf(UndeclaredThrowableException.class)
                .satisfies(thrown ->
                        assertThat(RunHistory.errorSummary(thrown)).isEqualTo("java.io.IOException: disk gone"));
        PublisherRun failing = run(Mono.error(new IllegalStateException("no rates")));
        assertThatThrownBy(failing::run)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no rates");
    }

    /**
     * An interrupt (a stop that no longer waits) cancels the subscription and fails the run, and
     * leaves the worker's interrupt flag clear, so that the end of the run can still be written.
     */
    @Test
    void shouldCancelTheSubscriptionWhenInterrupted() throws Exception {
        CountDownLatch cancelled = new CountDownLatch(1);
        CountDownLatch subscribed = new CountDownLatch(1);
        PublisherRun run = run(Mono.never()
                .doOnSubscribe(subscription -> subscribed.countDown())
                .doOnCancel(cancelled::countDown));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            try {
                run.run();
            } catch (Throwable ex) {
                thrown.set(ex);
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        runner.start();
        assertThat(subscribed.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        runner.interrupt();
        assertThat(cancelled.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        runner.join(TestDelays.LONG.toMillis());
        assertThat(thrown.get()).isInstanceOf(CancellationException.class);
        assertThat(interruptedAfter.get()).isFalse();
    }

    /**
     * With Reactor's automatic context propagation on, {@code currentFire()} answers on the threads
     * the publisher's operators move to; without it, only the Reactor Context carries the fire there.
     */
    @Test
    void shouldRestoreTheCurrentFireOnOperatorThreadsUnderAutomaticPropagation() throws Exception {
        Instant fire = Instant.parse("2026-01-01T00:05:00Z");
        AtomicReference<Instant> seen = new AtomicReference<>();
        AtomicReference<String> thread = new AtomicReference<>();
        PublisherRun run = run(Mono.delay(Duration.ofMillis(10)).doOnNext(tick -> {
            thread.set(Thread.currentThread().getName());
            seen.set(ClusteredJobs.currentFire());
        }));
        CurrentClusteredRun.run("jobs.refresh", fire, false, run);
        assertThat(thread.get()).isNotEqualTo(Thread.currentThread().getName());
        assertThat(seen.get()).as("without automatic propagation").isNull();

        Hooks.enableAutomaticContextPropagation();
        try {
            CurrentClusteredRun.run("jobs.refresh", fire, false, run);
        } finally {
            Hooks.disableAutomaticContextPropagation();
        }
        assertThat(thread.get()).isNotEqualTo(Thread.currentThread().getName());
        assertThat(seen.get()).as("with automatic propagation").isEqualTo(fire);
        assertThat(ClusteredJobs.currentFire())
                .as("nothing left on this thread")
                .isNull();
    }
}
