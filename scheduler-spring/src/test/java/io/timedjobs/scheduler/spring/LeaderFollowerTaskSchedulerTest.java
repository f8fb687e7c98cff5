package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.testsupport.MutableClock;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;
import org.springframework.scheduling.support.CronTrigger;

class LeaderFollowerTaskSchedulerTest {

    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private final ManualTicker ticker = new ManualTicker(0L, ORIGIN);

    private final List<LeaderFollowerTaskScheduler> created = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDownSchedulers() {
        created.forEach(LeaderFollowerTaskScheduler::shutdown);
    }

    private LeaderFollowerTaskScheduler manualScheduler(int poolSize) {
        return scheduler(s -> {
            s.setPoolSize(poolSize);
            s.setTicker(ticker);
        });
    }

    private LeaderFollowerTaskScheduler scheduler(Consumer<LeaderFollowerTaskScheduler> settings) {
        LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();
        scheduler.setThreadNamePrefix("adapter-test-");
        settings.accept(scheduler);
        scheduler.initialize();
        created.add(scheduler);
        return scheduler;
    }

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .as("event within %s", TestDelays.LONG)
                .isTrue();
    }

    // ---------------------------------------------------------------------------------------------
    // TaskScheduler methods and the clock

    /** A one-shot start time is read against the scheduler's clock, not the system clock. */
    @Test
    void shouldRunOneShotAtStartTimeOfItsClock() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        CountDownLatch ran = new CountDownLatch(1);

        ScheduledFuture<?> future = scheduler.schedule(ran::countDown, ORIGIN.plusSeconds(10));

        assertThat(future.getDelay(TimeUnit.SECONDS)).isEqualTo(10);
        ticker.advance(Duration.ofSeconds(10));
        awaitLatch(ran);
        await().atMost(TestDelays.LONG).until(future::isDone);
        assertThat(future.get()).isNull();
    }

    /** A start time in the past means as soon as a worker is free. */
    @Test
    void shouldRunOneShotWithPastStartTimeAtOnce() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        CountDownLatch ran = new CountDownLatch(1);

        scheduler.schedule(ran::countDown, ORIGIN.minusSeconds(3600));

        awaitLatch(ran);
    }

    /** Fixed rate with a start time: first run at the start time, then every period. */
    @Test
    void shouldRunAtFixedRateFromStartTime() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        AtomicInteger runs = new AtomicInteger();

        ScheduledFuture<?> future =
                scheduler.scheduleAtFixedRate(runs::incrementAndGet, ORIGIN.plusSeconds(5), Duration.ofSeconds(2));

        assertThat(future.getDelay(TimeUnit.SECONDS)).isEqualTo(5);
        ticker.advance(Duration.ofSeconds(5));
        await().atMost(TestDelays.LONG).until(() -> runs.get() == 1);
        await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.SECONDS) == 2);
        ticker.advance(Duration.ofSeconds(2));
        await().atMost(TestDelays.LONG).until(() -> runs.get() == 2);
        assertThat((Object) future).isInstanceOf(java.util.concurrent.RunnableScheduledFuture.class);
        assertThat(((java.util.concurrent.RunnableScheduledFuture<?>) future).isPeriodic())
                .isTrue();
    }

    /** Fixed rate without a start time runs at once, then every period. */
    @Test
    void shouldRunAtFixedRateAtOnceWithoutStartTime() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        AtomicInteger runs = new AtomicInteger();

        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(runs::incrementAndGet, Duration.ofSeconds(1));

        await().atMost(TestDelays.LONG).until(() -> runs.get() == 1);
        await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.SECONDS) == 1);
        ticker.advance(Duration.ofSeconds(1));
        await().atMost(TestDelays.LONG).until(() -> runs.get() == 2);
    }

    /** Fixed delay with a start time: the next run is due one delay after the previous one ends. */
    @Test
    void shouldRunWithFixedDelayFromStartTime() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        AtomicInteger runs = new AtomicInteger();
        // each run takes 1 s of ticker time, so fixed delay and fixed rate differ
        Runnable task = () -> {
            runs.incrementAndGet();
            ticker.advance(Duration.ofSeconds(1));
        };

        ScheduledFuture<?> future =
                scheduler.scheduleWithFixedDelay(task, ORIGIN.plusSeconds(5), Duration.ofSeconds(3));

        assertThat(future.getDelay(TimeUnit.SECONDS)).isEqualTo(5);
        ticker.advance(Duration.ofSeconds(5));
        await().atMost(TestDelays.LONG).until(() -> runs.get() == 1);
        // ran at 5 s, ended at 6 s: next due at 9 s
        await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.SECONDS) == 3);
    }

    /** Fixed delay without a start time runs at once. */
    @Test
    void shouldRunWithFixedDelayAtOnceWithoutStartTime() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        CountDownLatch ran = new CountDownLatch(1);

        scheduler.scheduleWithFixedDelay(ran::countDown, Duration.ofSeconds(3));

        awaitLatch(ran);
    }

    /** The default methods of TaskScheduler (Date and millisecond variants) reach the engine too. */
    @Test
    @SuppressWarnings("deprecation")
    void shouldSupportLegacyDefaultMethods() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        CountDownLatch ran = new CountDownLatch(2);

        scheduler.schedule(ran::countDown, java.util.Date.from(ORIGIN));
        scheduler.scheduleAtFixedRate(ran::countDown, 60_000L);

        awaitLatch(ran);
    }

    /** A trigger sees the scheduler's clock and the times of the previous execution. */
    @Test
    void shouldPassEngineTimesAndClockToTrigger() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        List<TriggerContext> contexts = new CopyOnWriteArrayList<>();
        List<Instant> seen = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        Trigger onceAfterOneSecond = context -> {
            contexts.add(context);
            seen.add(context.getClock().instant());
            done.countDown();
            return context.lastCompletion() == null
                    ? context.getClock().instant().plusSeconds(1)
                    : null;
        };

        ScheduledFuture<?> future =
                scheduler.schedule(() -> ticker.advance(Duration.ofMillis(250)), onceAfterOneSecond);
        ticker.advance(Duration.ofSeconds(1));

        awaitLatch(done);
        assertThat(future != null).isTrue();
        await().atMost(TestDelays.LONG).until(future::isDone);
        assertThat(seen).containsExactly(ORIGIN, ORIGIN.plusMillis(1250));
        TriggerContext second = contexts.get(1);
        assertThat(second.lastScheduledExecution()).isEqualTo(ORIGIN.plusSeconds(1));
        assertThat(second.lastActualExecution()).isEqualTo(ORIGIN.plusSeconds(1));
        assertThat(second.lastCompletion()).isEqualTo(ORIGIN.plusMillis(1250));
        assertThat(second.getClock()).isSameAs(scheduler.getClock());
    }

    /** A trigger with no first execution schedules nothing. */
    @Test
    void shouldReturnNullForTriggerWithoutFirstExecution() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);

        assertThat(scheduler.schedule(() -> {}, context -> null) == null).isTrue();
    }

    /**
     * A cron task never starts before its instant on the wall clock, even when the monotonic
     * ticker says it is due: here the clock lags the ticker by half a second.
     */
    @Test
    void shouldNeverStartCronTaskBeforeItsWallClockInstant() throws Exception {
        MutableClock clock = new MutableClock(ORIGIN.plusMillis(500));
        LeaderFollowerTaskScheduler scheduler = scheduler(s -> {
            s.setPoolSize(1);
            s.setTicker(ticker);
            s.setClock(clock);
        });
        AtomicInteger cronRuns = new AtomicInteger();
        List<Instant> startedAt = new CopyOnWriteArrayList<>();
        CountDownLatch firstCronRun = new CountDownLatch(1);

        scheduler.schedule(
                () -> {
                    startedAt.add(clock.instant());
                    cronRuns.incrementAndGet();
                    firstCronRun.countDown();
                },
                new CronTrigger("* * * * * *", ZoneOffset.UTC));
        // Due by the ticker at the same moment as the cron task, and queued behind it: once it has
        // run, the single worker has already looked at the cron task.
        CountDownLatch marker = new CountDownLatch(1);
        scheduler.getScheduledExecutor().schedule(marker::countDown, 500, TimeUnit.MILLISECONDS);

        ticker.advance(Duration.ofMillis(500)); // the clock stays at 00:00:00.5
        awaitLatch(marker);
        assertThat(cronRuns).hasValue(0);

        clock.set(ORIGIN.plusSeconds(1));
        ticker.advance(Duration.ofMillis(500));
        awaitLatch(firstCronRun);
        assertThat(startedAt.get(0)).isEqualTo(ORIGIN.plusSeconds(1));
    }

    /** Start times are read against a clock set on the scheduler, and getClock() returns it. */
    @Test
    void shouldHonourConfiguredClock() {
        Clock fixed = Clock.fixed(ORIGIN.plusSeconds(3600), ZoneId.of("Europe/Paris"));
        LeaderFollowerTaskScheduler scheduler = scheduler(s -> {
            s.setTicker(ticker);
            s.setClock(fixed);
        });

        ScheduledFuture<?> future = scheduler.schedule(() -> {}, ORIGIN.plusSeconds(3610));

        assertThat(scheduler.getClock()).isSameAs(fixed);
        assertThat(scheduler.getScheduledExecutor().getClock()).isSameAs(fixed);
        assertThat(future.getDelay(TimeUnit.SECONDS)).isEqualTo(10);
    }

    /** Without a clock, the default is the system clock in the default zone, like Spring's. */
    @Test
    void shouldDefaultToSystemClockInDefaultZone() {
        LeaderFollowerTaskScheduler scheduler = scheduler(s -> {});

        assertThat(scheduler.getClock().getZone()).isEqualTo(ZoneId.systemDefault());
    }

    // ---------------------------------------------------------------------------------------------
    // Errors

    /** A repeating task that throws is logged and keeps running; the engine counts the failures. */
    @Test
    void shouldKeepRepeatingTaskRunningAfterFailure() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        AtomicInteger runs = new AtomicInteger();

        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    runs.incrementAndGet();
                    throw new IllegalStateException("boom");
                },
                Duration.ofSeconds(1));
        await().atMost(TestDelays.LONG).until(() -> runs.get() == 1);
        await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.SECONDS) == 1);
        ticker.advance(Duration.ofSeconds(1));

        await().atMost(TestDelays.LONG).until(() -> runs.get() == 2);
        assertThat(future.isDone()).isFalse();
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().getFailedTaskCount() == 2);
    }

    /** A repeating task's failure goes to the error handler set on the scheduler. */
    @Test
    void shouldPassRepeatingFailureToErrorHandler() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        List<Throwable> handled = new CopyOnWriteArrayList<>();
        CountDownLatch failed = new CountDownLatch(1);
        scheduler.setErrorHandler(failure -> {
            handled.add(failure);
            failed.countDown();
        });
        IllegalStateException boom = new IllegalStateException("boom");

        scheduler.scheduleWithFixedDelay(
                () -> {
                    throw boom;
                },
                Duration.ofSeconds(1));

        awaitLatch(failed);
        assertThat(handled).containsExactly(boom);
    }

    /** An error handler that throws ends the repeating task; its future reports the exception. */
    @Test
    void shouldStopRepeatingTaskWhenErrorHandlerThrows() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        scheduler.setErrorHandler(failure -> {
            throw new IllegalArgumentException("handler gives up", failure);
        });

        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    throw new IllegalStateException("boom");
                },
                Duration.ofSeconds(1));

        await().atMost(TestDelays.LONG).until(future::isDone);
        assertThatThrownBy(future::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .hasMessage("handler gives up");
    }

    /** A one-shot task's failure is logged and completes its future exceptionally. */
    @Test
    void shouldCompleteOneShotFutureWithFailure() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);

        ScheduledFuture<?> future = scheduler.schedule(
                () -> {
                    throw new IllegalStateException("boom");
                },
                ORIGIN);

        await().atMost(TestDelays.LONG).until(future::isDone);
        assertThatThrownBy(future::get)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
    }

    /** A custom error handler sees one-shot failures; if it returns, the future completes normally. */
    @Test
    void shouldPassOneShotFailureToCustomErrorHandler() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
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
    }

    // ---------------------------------------------------------------------------------------------
    // Decorator, rejection, misuse

    /** The task decorator wraps each task and runs on the worker thread around it. */
    @Test
    void shouldApplyTaskDecorator() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        ThreadLocal<String> context = new ThreadLocal<>();
        AtomicReference<String> seen = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        scheduler.setTaskDecorator(task -> () -> {
            context.set("decorated");
            try {
                task.run();
            } finally {
                context.remove();
            }
        });

        scheduler.schedule(
                () -> {
                    seen.set(context.get());
                    ran.countDown();
                },
                ORIGIN);

        awaitLatch(ran);
        assertThat(seen).hasValue("decorated");
    }

    /** After shutdown every schedule method throws TaskRejectedException, and the engine counts it. */
    @Test
    void shouldRejectTasksAfterShutdown() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        scheduler.setBeanName("jobs");
        scheduler.shutdown();
        Runnable task = () -> {};

        List<Runnable> calls = List.of(
                () -> scheduler.schedule(task, ORIGIN),
                () -> scheduler.schedule(task, new CronTrigger("* * * * * *")),
                () -> scheduler.scheduleAtFixedRate(task, Duration.ofSeconds(1)),
                () -> scheduler.scheduleAtFixedRate(task, ORIGIN, Duration.ofSeconds(1)),
                () -> scheduler.scheduleWithFixedDelay(task, Duration.ofSeconds(1)),
                () -> scheduler.scheduleWithFixedDelay(task, ORIGIN, Duration.ofSeconds(1)));
        for (Runnable call : calls) {
            assertThatThrownBy(call::run)
                    .isInstanceOf(TaskRejectedException.class)
                    .hasMessageContaining("'jobs'")
                    .hasMessageContaining("shut down")
                    .hasCauseInstanceOf(RejectedExecutionException.class);
        }
        assertThat(scheduler.getScheduledExecutor().getRejectedTaskCount()).isEqualTo(calls.size());
    }

    /** Zero or negative periods and delays are refused with a message naming the argument. */
    @Test
    void shouldRejectNonPositivePeriods() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> scheduler.scheduleAtFixedRate(() -> {}, Duration.ZERO))
                .withMessage("period must be positive, was PT0S");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> scheduler.scheduleWithFixedDelay(() -> {}, ORIGIN, Duration.ofSeconds(-1)))
                .withMessage("delay must be positive, was PT-1S");
    }

    /** Null arguments fail fast, naming the argument. */
    @Test
    void shouldRejectNullArguments() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);

        assertThatThrownBy(() -> scheduler.schedule(null, ORIGIN))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("task");
        assertThatThrownBy(() -> scheduler.schedule(() -> {}, (Instant) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("startTime");
        assertThatThrownBy(() -> scheduler.schedule(() -> {}, (Trigger) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("trigger");
    }

    /** Using the scheduler before initialize() says what to do. */
    @Test
    void shouldExplainMissingInitialization() {
        LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();

        assertThatIllegalStateException()
                .isThrownBy(() -> scheduler.schedule(() -> {}, ORIGIN))
                .withMessageContaining("not initialized")
                .withMessageContaining("initialize()");
    }

    /** Engine settings can't change after initialization, and say so. */
    @Test
    void shouldRefuseEngineSettingsAfterInitialization() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);

        assertThatIllegalStateException()
                .isThrownBy(() -> scheduler.setPoolSize(4))
                .withMessageContaining("poolSize")
                .withMessageContaining("before");
    }

    /** A pool size below 1 is refused. */
    @Test
    void shouldRejectPoolSizeBelowOne() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new LeaderFollowerTaskScheduler().setPoolSize(0))
                .withMessage("poolSize must be at least 1, was 0");
    }

    /** Without a prefix, threads are named after the bean, or timed-jobs- outside Spring. */
    @Test
    void shouldDefaultThreadNamePrefixToBeanName() {
        LeaderFollowerTaskScheduler plain = new LeaderFollowerTaskScheduler();
        assertThat(plain.getThreadNamePrefix()).isEqualTo("timed-jobs-");
        plain.setBeanName("taskScheduler");
        assertThat(plain.getThreadNamePrefix()).isEqualTo("taskScheduler-");
        plain.setThreadNamePrefix("jobs-");
        assertThat(plain.getThreadNamePrefix()).isEqualTo("jobs-");
    }

    /** It is not an Executor, so Spring never picks it for @Async or as the application executor. */
    @Test
    void shouldNotBeAnExecutor() {
        assertThat(new LeaderFollowerTaskScheduler()).isNotInstanceOf(Executor.class);
    }

    /** Builder customizers reach the engine's builder after the scheduler's own settings. */
    @Test
    void shouldApplyBuilderCustomizers() throws Exception {
        AtomicReference<Thread> worker = new AtomicReference<>();
        LeaderFollowerTaskScheduler scheduler =
                scheduler(s -> s.addBuilderCustomizer(builder -> builder.threadFactory(runnable -> {
                    Thread thread = new Thread(runnable, "custom-factory");
                    thread.setDaemon(true);
                    return thread;
                })));
        CountDownLatch ran = new CountDownLatch(1);

        scheduler.schedule(
                () -> {
                    worker.set(Thread.currentThread());
                    ran.countDown();
                },
                Instant.now());

        awaitLatch(ran);
        assertThat(worker.get().getName()).isEqualTo("custom-factory");
        assertThat(worker.get().isDaemon()).isTrue();
    }

    // ---------------------------------------------------------------------------------------------
    // Lifecycle

    /** In the phase of Spring's executors by default. */
    @Test
    void shouldUseSpringExecutorPhase() {
        assertThat(new LeaderFollowerTaskScheduler().getPhase())
                .isEqualTo(org.springframework.scheduling.concurrent.ExecutorConfigurationSupport.DEFAULT_PHASE);
    }

    /** stop() holds back tasks that come due until start(). */
    @Test
    void shouldPauseOnStopAndResumeOnStart() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(2);
        CountDownLatch ran = new CountDownLatch(1);
        assertThat(scheduler.isRunning()).isTrue();

        scheduler.stop();
        assertThat(scheduler.isRunning()).isFalse();
        scheduler.schedule(ran::countDown, ORIGIN.plusSeconds(1));
        ticker.advance(Duration.ofSeconds(1));

        // a worker holds the task at the gate: active, but the task has not run
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().getActiveCount() == 1);
        assertThat(ran.getCount()).isEqualTo(1);

        scheduler.start();
        assertThat(scheduler.isRunning()).isTrue();
        awaitLatch(ran);
    }

    /** stop(callback) calls back only once the running task has finished. */
    @Test
    void shouldCallStopCallbackWhenRunningTasksFinish() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(2);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        AtomicBoolean finishedBeforeCallback = new AtomicBoolean();

        scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    finished.set(true);
                },
                ORIGIN);
        awaitLatch(started);

        scheduler.stop(() -> {
            finishedBeforeCallback.set(finished.get());
            stopped.countDown();
        });
        assertThat(stopped.getCount()).isEqualTo(1);
        release.countDown();

        awaitLatch(stopped);
        assertThat(finishedBeforeCallback).isTrue();
    }

    /** Without waiting for tasks, the scheduler shuts down as soon as its own context closes. */
    @Test
    void shouldShutDownEarlyOnContextClosedEvent() {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        GenericApplicationContext context = new GenericApplicationContext();
        GenericApplicationContext otherContext = new GenericApplicationContext();
        scheduler.setApplicationContext(context);

        scheduler.onApplicationEvent(new ContextClosedEvent(otherContext));
        assertThat(scheduler.getScheduledExecutor().isShutdown()).isFalse();

        scheduler.onApplicationEvent(new ContextClosedEvent(context));
        assertThat(scheduler.getScheduledExecutor().isShutdown()).isTrue();
    }

    /**
     * Once shut down early on context close, stop(callback) calls back at once: a running task
     * does not hold up the close, destroy() interrupts it instead.
     */
    @Test
    void shouldNotHoldStopAfterEarlyShutdown() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(1);
        GenericApplicationContext context = new GenericApplicationContext();
        scheduler.setApplicationContext(context);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                ORIGIN);
        awaitLatch(started);
        scheduler.onApplicationEvent(new ContextClosedEvent(context));
        AtomicBoolean calledBack = new AtomicBoolean();

        scheduler.stop(() -> calledBack.set(true));

        assertThat(calledBack).isTrue();
        release.countDown();
    }

    /** When it must wait for its tasks, the context closing leaves shutdown to destroy(). */
    @Test
    void shouldShutDownLateWhenWaitingForTasks() {
        LeaderFollowerTaskScheduler scheduler = scheduler(s -> {
            s.setTicker(ticker);
            s.setWaitForTasksToCompleteOnShutdown(true);
        });
        GenericApplicationContext context = new GenericApplicationContext();
        scheduler.setApplicationContext(context);

        scheduler.onApplicationEvent(new ContextClosedEvent(context));
        assertThat(scheduler.getScheduledExecutor().isShutdown()).isFalse();

        scheduler.destroy();
        assertThat(scheduler.getScheduledExecutor().isShutdown()).isTrue();
    }

    /** destroy() without waiting for tasks interrupts the running task and cancels queued ones. */
    @Test
    void shouldInterruptRunningTasksWhenNotWaiting() throws Exception {
        LeaderFollowerTaskScheduler scheduler = manualScheduler(2);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                    }
                },
                ORIGIN);
        ScheduledFuture<?> queued = scheduler.schedule(() -> {}, ORIGIN.plusSeconds(60));
        awaitLatch(started);

        scheduler.destroy();

        awaitLatch(interrupted);
        assertThat(queued.isCancelled()).isTrue();
    }

    /** With waiting and an await period, destroy() returns only after the running task finished. */
    @Test
    void shouldAwaitRunningTaskOnDestroy() throws Exception {
        LeaderFollowerTaskScheduler scheduler = scheduler(s -> {
            s.setTicker(ticker);
            s.setWaitForTasksToCompleteOnShutdown(true);
            s.setAwaitTerminationPeriod(TestDelays.LONG);
        });
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    finished.set(true);
                },
                ORIGIN);
        awaitLatch(started);
        AtomicBoolean finishedWhenDestroyReturned = new AtomicBoolean();
        Thread destroyer = new Thread(() -> {
            scheduler.destroy();
            finishedWhenDestroyReturned.set(finished.get());
        });

        destroyer.start();
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().isShutdown());
        release.countDown();
        destroyer.join(TestDelays.LONG.toMillis());

        assertThat(destroyer.isAlive()).isFalse();
        assertThat(finishedWhenDestroyReturned).isTrue();
    }
}
