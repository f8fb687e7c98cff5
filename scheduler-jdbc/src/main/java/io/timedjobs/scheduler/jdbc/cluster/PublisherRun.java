package io.timedjobs.scheduler.jdbc.cluster;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.timedjobs.scheduler.spring.ReactiveScheduledMethod;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.support.DefaultScheduledTaskObservationConvention;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;
import org.springframework.scheduling.support.ScheduledTaskObservationConvention;
import org.springframework.scheduling.support.ScheduledTaskObservationDocumentation;
import org.springframework.util.ClassUtils;

/**
 * Thread-safe; one {@link #run()} at a time per job, as its {@link ClusteredJob} calls it: the run
 * of a reactive {@code @Scheduled} method's fire, which subscribes to the method's publisher and
 * returns once the publisher has terminated, so that the clustered job holds its run lease, and
 * records the end, duration and outcome, of the publisher's whole run.
 *
 * <p>It stands in for Spring's own runnable of the method (see {@link ReactiveScheduledMethod}),
 * which subscribes and returns at once for fixed-rate and cron methods and never reports an
 * error. A publisher's error is thrown from {@link #run()}, so that the run is recorded as failed
 * and the scheduler's error handler sees it, as for a method that throws; an interrupt (a stop that
 * no longer waits) cancels the subscription and fails the run with a {@link CancellationException},
 * and is consumed by that cancellation: the thread's interrupt flag is clear when {@link #run()}
 * throws, so that the end of the run is still recorded and its lease released.
 *
 * <p>What the run can ask about itself: {@link ClusteredJobs#currentFire()} answers on the thread
 * that subscribes while it subscribes (what a {@code Mono.defer} or {@code Mono.fromCallable}
 * does before its first change of thread, and a Kotlin {@code suspend} function until its first
 * suspension); with Reactor present, the subscription's Reactor {@code Context} holds the fire and
 * the job under {@link ClusteredJobs#FIRE_CONTEXT_KEY} and {@link ClusteredJobs#JOB_CONTEXT_KEY}
 * for every operator, on any thread, and the run itself under {@link ClusteredRunAccessor#KEY}, so
 * that with Reactor's automatic context propagation {@code currentFire()} answers on every thread. Spring's {@code tasks.scheduled.execution} observation is
 * made as Spring makes it, and stopped on the thread that ran the fire.
 */
final class PublisherRun implements SchedulingAwareRunnable {

    private static final boolean REACTOR_PRESENT =
            ClassUtils.isPresent("reactor.core.publisher.Flux", PublisherRun.class.getClassLoader());

    private static final ScheduledTaskObservationConvention DEFAULT_CONVENTION =
            new DefaultScheduledTaskObservationConvention();

    private final ReactiveScheduledMethod method;
    private final Publisher<?> publisher;
    private final @Nullable String qualifier;

    PublisherRun(ReactiveScheduledMethod method, @Nullable String qualifier) {
        this.method = Objects.requireNonNull(method, "method");
        this.publisher = (Publisher<?>) method.publisher();
        this.qualifier = qualifier;
    }

    @Override
    public void run() {
        @SuppressWarnings("unchecked")
        Supplier<ScheduledTaskObservationContext> context =
                (Supplier<ScheduledTaskObservationContext>) method.observationContext();
        Observation observation = ScheduledTaskObservationDocumentation.TASKS_SCHEDULED_EXECUTION.observation(
                null, DEFAULT_CONVENTION, context, (ObservationRegistry)
                        method.observationRegistry().get());
        observation.start();
        RunSubscriber subscriber = new RunSubscriber();
        try {
            if (REACTOR_PRESENT) {
                WithReactor.subscribe(publisher, subscriber, observation);
            } else {
                publisher.subscribe(subscriber);
            }
            subscriber.awaitEnd();
            if (observation.getContext() instanceof ScheduledTaskObservationContext scheduled) {
                scheduled.setComplete(true);
            }
        } catch (RuntimeException | Error ex) {
            observation.error(ex);
            throw ex;
        } finally {
            observation.stop();
        }
    }

    @Override
    public @Nullable String getQualifier() {
        return qualifier;
    }

    @Override
    public String toString() {
        return method.method().getDeclaringClass().getName() + "."
                + method.method().getName();
    }

    /** Requests everything, ignores the items, and tells the thread waiting for the end. */
    private static final class RunSubscriber implements Subscriber<Object> {

        private final CountDownLatch ended = new CountDownLatch(1);

        /** Set before the latch counts down: happens-before the waiting thread reads it. */
        private @Nullable Throwable failure;

        private volatile @Nullable Subscription subscription;

        @Override
        public void onSubscribe(Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Object item) {
            // the run's items are the method's business; the run waits for its end
        }

        @Override
        public void onError(Throwable error) {
            failure = error;
            ended.countDown();
        }

        @Override
        public void onComplete() {
            ended.countDown();
        }

        /** Waits for the publisher's end; throws its error, or a cancellation when interrupted. */
        void awaitEnd() {
            try {
                ended.await();
            } catch (InterruptedException ex) {
                Subscription current = subscription;
                if (current != null) {
                    current.cancel();
                }
                // The interrupt is consumed here, on purpose: it asked this run to stop, and
                // cancelling the subscription is that stop. Left set, it would fail the clustered
                // job's end of run on this same thread (a pooled connection's wait gives up at once
                // on an interrupted thread): no history record, a false outage, and the run lease
                // held until it expires. The worker learns of the stop from the exception.
                CancellationException cancelled =
                        new CancellationException("interrupted before its publisher completed; subscription cancelled");
                cancelled.initCause(ex);
                throw cancelled;
            }
            Throwable error = failure;
            if (error instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (error instanceof Error fatal) {
                throw fatal;
            }
            if (error != null) {
                // a checked exception, which a publisher may signal: the history shows the cause
                throw new UndeclaredThrowableException(error, "publisher signalled " + error);
            }
        }
    }

    /** The subscription through Reactor, so that its Context carries the run; loaded only when Reactor is. */
    private static final class WithReactor {

        /** Key of Micrometer's current observation in a Reactor Context, as Spring sets it. */
        private static final String OBSERVATION_KEY = "micrometer.observation";

        static void subscribe(Publisher<?> publisher, Subscriber<Object> subscriber, Observation observation) {
            CurrentClusteredRun.Run run = CurrentClusteredRun.current();
            reactor.core.publisher.Flux.from(publisher)
                    .contextWrite(context -> {
                        reactor.util.context.Context written = context.put(OBSERVATION_KEY, observation);
                        if (run != null) {
                            // the key is a constant: no class of context propagation is loaded here
                            written = written.put(ClusteredJobs.FIRE_CONTEXT_KEY, run.fire())
                                    .put(ClusteredJobs.JOB_CONTEXT_KEY, run.job())
                                    .put(ClusteredRunAccessor.KEY, run);
                        }
                        return written;
                    })
                    .subscribe(subscriber);
        }
    }
}
