package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The behaviour {@link ScheduledExecutorService} defines, checked the same way against every
 * implementation: ours, and the JDK's {@link java.util.concurrent.ScheduledThreadPoolExecutor} as
 * the reference. A subclass supplies the scheduler through {@link #newScheduler(Options)}.
 */
@Timeout(60)
abstract class ScheduledExecutorContractTest {

    /** What a test needs configured; the rest stays at each implementation's defaults. */
    record Options(int poolSize, boolean executeDelayedAfterShutdown, boolean continuePeriodicAfterShutdown) {
        static Options pool(int poolSize) {
            return new Options(poolSize, true, false);
        }
    }

    private final List<ScheduledExecutorService> created = Collections.synchronizedList(new ArrayList<>());

    /** Returns a new scheduler with a fixed pool and the given shutdown policies. */
    protected abstract ScheduledExecutorService newScheduler(Options options);

    /**
     * Whether a delayed one-shot task accepted while shutdown() races with the submission always
     * runs. Ours does. The JDK's executor may instead hand back a future it has already
     * cancelled, when it terminated between its shutdown check and its queueing of the task: the
     * task is then handled by the shutdown policy, not run.
     */
    protected boolean runsEveryTaskAcceptedDuringShutdown() {
        return true;
    }

    private ScheduledExecutorService scheduler(Options options) {
        ScheduledExecutorService scheduler = newScheduler(options);
        created.add(scheduler);
        return scheduler;
    }

    private ScheduledExecutorService scheduler(int poolSize) {
        return scheduler(Options.pool(poolSize));
    }

    @AfterEach
    void stopSchedulers() throws InterruptedException {
        for (ScheduledExecutorService scheduler : created) {
            scheduler.shutdownNow();
            assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .as("terminated")
                    .isTrue();
        }
    }

    static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TestDelays.LONG.toMillis(), MILLISECONDS))
                .as("event within %s", TestDelays.LONG)
                .isTrue();
    }

    /** Simulates work that takes a while; a stand-in for a slow task, not a wait for an event. */
    private static void work(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 1. Delay of zero or less

    /** A task with delay zero runs as soon as a worker is free. */
    @Test
    void shouldRunTaskWithZeroDelay() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        CountDownLatch ran = new CountDownLatch(1);
        scheduler.schedule(ran::countDown, 0, MILLISECONDS);
        awaitLatch(ran);
    }

    /** A task with a negative delay runs as soon as a worker is free, like delay zero. */
    @Test
    void shouldRunTaskWithNegativeDelay() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        ScheduledFuture<String> future = scheduler.schedule(() -> "done", -5, TimeUnit.SECONDS);
        assertThat(future.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo("done");
    }

    /**
     * A negative delay is never taken for a huge one: the task runs before one with a short delay
     * submitted just before it.
     */
    @Test
    void shouldRunNegativeDelayBeforeShortDelay() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch both = new CountDownLatch(2);
        scheduler.schedule(
                () -> {
                    order.add("short");
                    both.countDown();
                },
                TestDelays.SMALL_WINDOW.toMillis(),
                MILLISECONDS);
        scheduler.schedule(
                () -> {
                    order.add("negative");
                    both.countDown();
                },
                Long.MIN_VALUE,
                NANOSECONDS);
        awaitLatch(both);
        assertThat(order).containsExactly("negative", "short");
    }

    // ---------------------------------------------------------------------------------------------
    // 2. Order

    /** Tasks that are due together run in the order they were submitted (one worker). */
    @Test
    void shouldRunTasksDueTogetherInSubmissionOrder() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        CountDownLatch gate = new CountDownLatch(1);
        scheduler.execute(() -> awaitQuietly(gate));
        int n = 500;
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            int id = i;
            scheduler.schedule(
                    () -> {
                        order.add(id);
                        done.countDown();
                    },
                    i % 2 == 0 ? 0 : -1,
                    NANOSECONDS);
        }
        gate.countDown();
        awaitLatch(done);
        assertThat(order).isSorted().hasSize(n);
    }

    /** Tasks with the same delay run in submission order, since their due times never decrease. */
    @Test
    void shouldRunTasksWithSameDelayInSubmissionOrder() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        int n = 300;
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            int id = i;
            scheduler.schedule(
                    () -> {
                        order.add(id);
                        done.countDown();
                    },
                    TestDelays.SHORT.toMillis(),
                    MILLISECONDS);
        }
        awaitLatch(done);
        assertThat(order).isSorted().hasSize(n);
    }

    /**
     * A task with a shorter delay submitted later runs before one with a longer delay. The two
     * calls must come within one short delay of each other for the later one to be due first; an
     * attempt where the submitting thread was held up longer (a busy machine) proves nothing and
     * is made again.
     */
    @Test
    void shouldRunEarlierDueTaskFirst() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        long shortMillis = TestDelays.SHORT.toMillis();
        for (int attempt = 1; attempt <= 5; attempt++) {
            List<String> order = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch both = new CountDownLatch(2);
            long before = System.nanoTime();
            scheduler.schedule(
                    () -> {
                        order.add("late");
                        both.countDown();
                    },
                    shortMillis * 4,
                    MILLISECONDS);
            scheduler.schedule(
                    () -> {
                        order.add("early");
                        both.countDown();
                    },
                    shortMillis,
                    MILLISECONDS);
            long gapMillis = NANOSECONDS.toMillis(System.nanoTime() - before);
            awaitLatch(both);
            if (gapMillis < shortMillis * 2) {
                assertThat(order).containsExactly("early", "late");
                return;
            }
        }
        Assumptions.abort("the submitting thread was held up between its two calls in every attempt");
    }

    // ---------------------------------------------------------------------------------------------
    // Results and cancellation

    /** A callable's result reaches its future. */
    @Test
    void shouldReturnCallableResult() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        ScheduledFuture<Integer> future = scheduler.schedule(() -> 42, 1, MILLISECONDS);
        assertThat(future.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo(42);
        assertThat(future.isDone()).isTrue();
        assertThat(future.isCancelled()).isFalse();
    }

    /** A cancelled task never runs, and its future reports the cancellation. */
    @Test
    void shouldNeverRunCancelledTask() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> future =
                scheduler.schedule(runs::incrementAndGet, TestDelays.SMALL_WINDOW.toMillis(), MILLISECONDS);
        assertThat(future.cancel(false)).isTrue();
        assertThat(future.isCancelled()).isTrue();
        assertThat(future.isDone()).isTrue();
        assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
        assertThat(future.cancel(false)).as("second cancel").isFalse();
        ScheduledFuture<?> later = scheduler.schedule(() -> {}, TestDelays.SMALL_WINDOW.toMillis() * 2, MILLISECONDS);
        later.get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(runs).hasValue(0);
    }

    /** Cancelling a completed task fails and leaves its result in place. */
    @Test
    void shouldNotCancelCompletedTask() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        ScheduledFuture<String> future = scheduler.schedule(() -> "x", 0, MILLISECONDS);
        assertThat(future.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo("x");
        assertThat(future.cancel(true)).isFalse();
        assertThat(future.isCancelled()).isFalse();
        assertThat(future.get()).isEqualTo("x");
    }

    /** cancel(true) interrupts a running task. */
    @Test
    void shouldInterruptRunningTaskOnCancel() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        ScheduledFuture<?> future = scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                    }
                },
                0,
                MILLISECONDS);
        awaitLatch(started);
        assertThat(future.cancel(true)).isTrue();
        awaitLatch(interrupted);
        // The interrupt does not leak into the next task on the same worker.
        AtomicInteger flags = new AtomicInteger(-1);
        scheduler
                .schedule(() -> flags.set(Thread.currentThread().isInterrupted() ? 1 : 0), 0, MILLISECONDS)
                .get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(flags).hasValue(0);
    }

    /** get with a timeout gives up with TimeoutException while the task is pending. */
    @Test
    void shouldTimeOutGetOfPendingTask() {
        ScheduledExecutorService scheduler = scheduler(1);
        ScheduledFuture<?> future = scheduler.schedule(() -> {}, 1, TimeUnit.HOURS);
        assertThatThrownBy(() -> future.get(1, MILLISECONDS)).isInstanceOf(java.util.concurrent.TimeoutException.class);
        assertThat(future.getDelay(TimeUnit.MINUTES)).isBetween(58L, 60L);
    }

    // ---------------------------------------------------------------------------------------------
    // 4. Fixed rate

    /** Fixed-rate executions never start before their slot and never overlap. */
    @Test
    void shouldRunFixedRateOnSlotsWithoutOverlap() throws Exception {
        ScheduledExecutorService scheduler = scheduler(4);
        long period = MILLISECONDS.toNanos(10);
        int runs = 12;
        long[] starts = new long[runs];
        AtomicInteger count = new AtomicInteger();
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        long before = System.nanoTime();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    int now = concurrent.incrementAndGet();
                    maxConcurrent.accumulateAndGet(now, Math::max);
                    int i = count.getAndIncrement();
                    if (i < runs) {
                        starts[i] = System.nanoTime();
                    }
                    if (i == 3) {
                        work(period * 3); // a slow run: the next ones are due before it ends
                    }
                    concurrent.decrementAndGet();
                    if (i == runs - 1) {
                        done.countDown();
                    }
                },
                period,
                period,
                NANOSECONDS);
        awaitLatch(done);
        future.cancel(false);
        assertThat(maxConcurrent).hasValue(1);
        for (int i = 0; i < runs; i++) {
            assertThat(starts[i] - before).as("start of run %d", i).isGreaterThanOrEqualTo((i + 1) * period);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 5. Fixed delay

    /** Fixed-delay executions start at least the delay after the previous one completed. */
    @Test
    void shouldWaitFixedDelayAfterCompletion() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        long delay = MILLISECONDS.toNanos(5);
        int runs = 6;
        long[] starts = new long[runs];
        long[] ends = new long[runs];
        AtomicInteger count = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        ScheduledFuture<?> future = scheduler.scheduleWithFixedDelay(
                () -> {
                    int i = count.getAndIncrement();
                    if (i >= runs) {
                        return;
                    }
                    starts[i] = System.nanoTime();
                    work(delay * (i % 3));
                    ends[i] = System.nanoTime();
                    if (i == runs - 1) {
                        done.countDown();
                    }
                },
                0,
                delay,
                NANOSECONDS);
        awaitLatch(done);
        future.cancel(false);
        for (int i = 1; i < runs; i++) {
            assertThat(starts[i] - ends[i - 1]).as("gap before run %d", i).isGreaterThanOrEqualTo(delay);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // 7. Failures

    /** A one-shot task's exception completes its future exceptionally. */
    @Test
    void shouldCompleteFutureWithTaskFailure() {
        ScheduledExecutorService scheduler = scheduler(1);
        IllegalStateException boom = new IllegalStateException("boom");
        ScheduledFuture<Object> future = scheduler.schedule(
                () -> {
                    throw boom;
                },
                0,
                MILLISECONDS);
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(boom);
        assertThat(future.isDone()).isTrue();
    }

    /** A periodic task that throws stops repeating and its future reports the exception. */
    @Test
    void shouldStopPeriodicTaskAfterFailure() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    if (runs.incrementAndGet() == 2) {
                        throw new IllegalStateException("second run fails");
                    }
                },
                0,
                1,
                MILLISECONDS);
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("second run fails");
        scheduler.schedule(() -> {}, 20, MILLISECONDS).get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(runs).hasValue(2);
    }

    /** A task that throws an Error does not cost the pool a worker. */
    @Test
    void shouldKeepRunningTasksAfterTaskThrowsError() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        Future<?> failed = scheduler.submit(() -> {
            throw new AssertionError("an error, not an exception");
        });
        assertThatThrownBy(() -> failed.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .hasCauseInstanceOf(AssertionError.class);
        assertThat(scheduler.submit(() -> "still here").get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("still here");
    }

    // ---------------------------------------------------------------------------------------------
    // 8. Bad input

    /** Null tasks and units are refused with NullPointerException. */
    @Test
    void shouldRejectNulls() {
        ScheduledExecutorService scheduler = scheduler(1);
        Runnable task = () -> {};
        Callable<String> callable = () -> "";
        assertThatThrownBy(() -> scheduler.schedule((Runnable) null, 1, MILLISECONDS))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.schedule((Callable<?>) null, 1, MILLISECONDS))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.schedule(task, 1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.schedule(callable, 1, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.scheduleAtFixedRate(null, 1, 1, MILLISECONDS))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.scheduleAtFixedRate(task, 1, 1, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(null, 1, 1, MILLISECONDS))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(task, 1, 1, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.execute(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.submit((Runnable) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.submit((Callable<?>) null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.submit(null, "result")).isInstanceOf(NullPointerException.class);
    }

    /** A period or delay of zero or less is refused with IllegalArgumentException. */
    @Test
    void shouldRejectNonPositivePeriods() {
        ScheduledExecutorService scheduler = scheduler(1);
        Runnable task = () -> {};
        assertThatThrownBy(() -> scheduler.scheduleAtFixedRate(task, 0, 0, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> scheduler.scheduleAtFixedRate(task, 0, -1, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(task, 0, 0, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(task, 0, Long.MIN_VALUE, MILLISECONDS))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Delays up to Long.MAX_VALUE in any unit are accepted without overflow. */
    @Test
    void shouldAcceptHugeDelaysWithoutOverflow() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        AtomicInteger ranEarly = new AtomicInteger();
        List<ScheduledFuture<?>> far = List.of(
                scheduler.schedule(ranEarly::incrementAndGet, Long.MAX_VALUE, NANOSECONDS),
                scheduler.schedule(ranEarly::incrementAndGet, Long.MAX_VALUE, DAYS),
                scheduler.schedule(() -> ranEarly.incrementAndGet(), Long.MAX_VALUE - 1, MILLISECONDS),
                scheduler.scheduleAtFixedRate(ranEarly::incrementAndGet, Long.MAX_VALUE, Long.MAX_VALUE, DAYS),
                scheduler.scheduleWithFixedDelay(
                        ranEarly::incrementAndGet, Long.MAX_VALUE, Long.MAX_VALUE, NANOSECONDS));
        for (ScheduledFuture<?> f : far) {
            assertThat(f.getDelay(DAYS)).as("delay of %s", f).isGreaterThan(365L * 100);
        }
        // A near task is still ordered before the far ones and runs on time.
        assertThat(scheduler.schedule(() -> "near", 1, MILLISECONDS).get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("near");
        // A periodic task with a huge period runs once, then waits.
        AtomicInteger once = new AtomicInteger();
        CountDownLatch ranOnce = new CountDownLatch(1);
        ScheduledFuture<?> hugePeriod = scheduler.scheduleAtFixedRate(
                () -> {
                    once.incrementAndGet();
                    ranOnce.countDown();
                },
                0,
                Long.MAX_VALUE,
                NANOSECONDS);
        awaitLatch(ranOnce);
        scheduler.schedule(() -> {}, 5, MILLISECONDS).get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(once).hasValue(1);
        assertThat(hugePeriod.getDelay(DAYS)).isGreaterThan(365L * 100);
        for (ScheduledFuture<?> f : far) {
            assertThat(f.cancel(false)).isTrue();
        }
        assertThat(hugePeriod.cancel(false)).isTrue();
        assertThat(ranEarly).hasValue(0);
    }

    /** Every way of submitting is refused with RejectedExecutionException after shutdown. */
    @Test
    void shouldRejectSubmissionsAfterShutdown() {
        ScheduledExecutorService scheduler = scheduler(1);
        scheduler.shutdown();
        Runnable task = () -> {};
        assertThatThrownBy(() -> scheduler.schedule(task, 1, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.schedule(() -> "x", 1, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.scheduleAtFixedRate(task, 1, 1, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(task, 1, 1, MILLISECONDS))
                .isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.execute(task)).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.submit(task)).isInstanceOf(RejectedExecutionException.class);
        assertThatThrownBy(() -> scheduler.submit(() -> "x")).isInstanceOf(RejectedExecutionException.class);
    }

    // ---------------------------------------------------------------------------------------------
    // 9. Shutdown

    /** By default, delayed one-shot tasks still run after shutdown, and then the pool terminates. */
    @Test
    void shouldRunDelayedTasksAfterShutdownByDefault() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        ScheduledFuture<String> future = scheduler.schedule(() -> "ran", TestDelays.SHORT.toMillis(), MILLISECONDS);
        scheduler.shutdown();
        assertThat(scheduler.isShutdown()).isTrue();
        assertThat(future.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo("ran");
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        assertThat(scheduler.isTerminated()).isTrue();
    }

    /** With executeExistingDelayedTasksAfterShutdown off, shutdown cancels delayed tasks. */
    @Test
    void shouldCancelDelayedTasksAtShutdownWhenConfigured() throws Exception {
        ScheduledExecutorService scheduler = scheduler(new Options(2, false, false));
        ScheduledFuture<?> delayed = scheduler.schedule(() -> {}, 1, TimeUnit.HOURS);
        scheduler.shutdown();
        assertThat(delayed.isCancelled()).isTrue();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** By default, periodic tasks stop at shutdown. */
    @Test
    void shouldStopPeriodicTasksAtShutdownByDefault() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        ScheduledFuture<?> rate = scheduler.scheduleAtFixedRate(() -> {}, 0, 1, MILLISECONDS);
        ScheduledFuture<?> delay = scheduler.scheduleWithFixedDelay(() -> {}, 1, 1, TimeUnit.HOURS);
        scheduler.shutdown();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        assertThat(rate.isCancelled()).isTrue();
        assertThat(delay.isCancelled()).isTrue();
    }

    /** With continueExistingPeriodicTasksAfterShutdown on, periodic tasks run until shutdownNow. */
    @Test
    void shouldContinuePeriodicTasksAfterShutdownWhenConfigured() throws Exception {
        ScheduledExecutorService scheduler = scheduler(new Options(2, true, true));
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> rate = scheduler.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, MILLISECONDS);
        scheduler.shutdown();
        int atShutdown = runs.get();
        await().atMost(TestDelays.LONG)
                .untilAsserted(() -> assertThat(runs.get()).isGreaterThan(atShutdown + 3));
        assertThat(scheduler.isTerminated()).isFalse();
        assertThat(rate.isDone()).isFalse();
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** shutdownNow interrupts running tasks and returns the queued ones, which never run. */
    @Test
    void shouldReturnQueuedTasksAndInterruptRunningOnShutdownNow() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        scheduler.execute(() -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        awaitLatch(started);
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> queued1 = scheduler.schedule(ran::incrementAndGet, 0, MILLISECONDS);
        ScheduledFuture<?> queued2 = scheduler.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS);
        List<Runnable> neverRan = scheduler.shutdownNow();
        awaitLatch(interrupted);
        assertThat(neverRan).containsExactlyInAnyOrder((Runnable) queued1, (Runnable) queued2);
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        assertThat(ran).hasValue(0);
    }

    /**
     * Once shutdownNow() has begun, no worker takes a task out of the queue: of many due one-shot
     * tasks, each either ran or is returned, but for at most one per worker (taken just before,
     * then cancelled instead of run); and no returned task ran.
     */
    @ParameterizedTest(name = "pool size {0}")
    @ValueSource(ints = {1, 2})
    @Timeout(120)
    void shouldReturnQueuedTasksOnShutdownNowWhileWorkersDrainThem(int poolSize) throws Exception {
        for (int trial = 0; trial < 5; trial++) {
            ShutdownNowTally tally = shutdownNowWhileDraining(scheduler(poolSize), 100_000, 1_000);
            assertThat(tally.ranAndReturned())
                    .as("returned tasks that also ran")
                    .isZero();
            assertThat(tally.neitherRanNorReturned())
                    .as("tasks cancelled instead of returned, trial %d", trial)
                    .isLessThanOrEqualTo(poolSize);
        }
    }

    /** What became of the one-shot tasks of {@link #shutdownNowWhileDraining}. */
    record ShutdownNowTally(int ran, int returned, int ranAndReturned, int neitherRanNorReturned) {}

    /**
     * Schedules {@code tasks} one-shot tasks due now, calls shutdownNow() once {@code before} of
     * them ran, waits for termination, and counts what became of each. A task that neither ran nor
     * was returned must have been cancelled: any other fate is a failure here.
     */
    static ShutdownNowTally shutdownNowWhileDraining(ScheduledExecutorService scheduler, int tasks, int before)
            throws InterruptedException {
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        CountDownLatch enoughRan = new CountDownLatch(before);
        IdentityHashMap<Object, Integer> index = new IdentityHashMap<>();
        List<ScheduledFuture<?>> futures = new ArrayList<>(tasks);
        for (int i = 0; i < tasks; i++) {
            int id = i;
            ScheduledFuture<?> future = scheduler.schedule(
                    () -> {
                        runs.incrementAndGet(id);
                        enoughRan.countDown();
                    },
                    0,
                    MILLISECONDS);
            futures.add(future);
            index.put(future, id);
        }
        awaitLatch(enoughRan);
        List<Runnable> neverRan = scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .as("terminated")
                .isTrue();
        boolean[] returned = new boolean[tasks];
        for (Runnable r : neverRan) {
            Integer id = index.get(r);
            assertThat(id).as("returned task %s is one of ours", r).isNotNull();
            returned[id] = true;
        }
        int ran = 0;
        int ranAndReturned = 0;
        int neither = 0;
        for (int i = 0; i < tasks; i++) {
            boolean didRun = runs.get(i) > 0;
            assertThat(runs.get(i)).as("runs of task %d", i).isLessThanOrEqualTo(1);
            ran += didRun ? 1 : 0;
            ranAndReturned += didRun && returned[i] ? 1 : 0;
            if (!didRun && !returned[i]) {
                neither++;
                assertThat(futures.get(i).isCancelled())
                        .as("task %d neither ran nor was returned, so it must be cancelled", i)
                        .isTrue();
            }
        }
        return new ShutdownNowTally(ran, neverRan.size(), ranAndReturned, neither);
    }

    /** awaitTermination returns false when the time runs out first, true once terminated. */
    @Test
    void shouldReportAwaitTerminationTimeout() throws Exception {
        ScheduledExecutorService scheduler = scheduler(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        scheduler.execute(() -> {
            started.countDown();
            awaitQuietly(release);
        });
        awaitLatch(started);
        scheduler.shutdown();
        assertThat(scheduler.awaitTermination(1, MILLISECONDS)).isFalse();
        assertThat(scheduler.isTerminated()).isFalse();
        release.countDown();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** A scheduler that never ran a task terminates as soon as it is shut down. */
    @Test
    void shouldTerminateUnusedSchedulerAtOnce() throws Exception {
        ScheduledExecutorService scheduler = scheduler(3);
        scheduler.shutdown();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    // ---------------------------------------------------------------------------------------------
    // ExecutorService

    /** submit, invokeAll and invokeAny work as ExecutorService defines them. */
    @Test
    void shouldSupportExecutorServiceMethods() throws Exception {
        ScheduledExecutorService scheduler = scheduler(2);
        assertThat(scheduler.submit(() -> {}, "result").get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("result");
        assertThat(scheduler.submit(() -> {}).get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isNull();
        List<Future<Integer>> all = scheduler.invokeAll(List.of(() -> 1, () -> 2, () -> 3));
        assertThat(all).extracting(Future::get).containsExactly(1, 2, 3);
        Integer any = scheduler.invokeAny(List.of(
                () -> {
                    throw new IllegalStateException();
                },
                () -> 7));
        assertThat(any).isEqualTo(7);
    }

    // ---------------------------------------------------------------------------------------------
    // Stress

    /**
     * Producers schedule and cancel tens of thousands of tasks while the scheduler shuts down:
     * every accepted task that was not cancelled runs exactly once, a cancelled one at most once
     * (when cancelled while running), a rejected one never, and the pool terminates.
     */
    @Test
    @Timeout(120)
    void shouldRunEveryAcceptedTaskExactlyOnceUnderConcurrentLoad() throws Exception {
        ScheduledExecutorService scheduler = scheduler(4);
        int producers = 4;
        int perProducer = 8_000;
        int total = producers * perProducer;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        // 0 = not submitted, 1 = accepted, 2 = rejected, 3 = cancelled
        AtomicIntegerArray fate = new AtomicIntegerArray(total);
        AtomicReferenceArray<ScheduledFuture<?>> futures = new AtomicReferenceArray<>(total);
        AtomicLong accepted = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            Thread producer = new Thread(
                    () -> {
                        try {
                            start.await();
                            ThreadLocalRandom random = ThreadLocalRandom.current();
                            ScheduledFuture<?> previous = null;
                            int previousId = -1;
                            for (int i = 0; i < perProducer; i++) {
                                int id = base + i;
                                try {
                                    ScheduledFuture<?> f = scheduler.schedule(
                                            () -> {
                                                runs.incrementAndGet(id);
                                            },
                                            random.nextInt(3_000),
                                            TimeUnit.MICROSECONDS);
                                    futures.set(id, f);
                                    fate.set(id, 1);
                                    accepted.incrementAndGet();
                                    if (previous != null
                                            && random.nextInt(3) == 0
                                            && previous.cancel(random.nextBoolean())) {
                                        fate.set(previousId, 3);
                                    }
                                    previous = f;
                                    previousId = id;
                                } catch (RejectedExecutionException rejected) {
                                    fate.set(id, 2);
                                }
                            }
                        } catch (Throwable t) {
                            errors.add(t);
                        }
                    },
                    "producer-" + p);
            threads.add(producer);
            producer.start();
        }
        start.countDown();
        await().atMost(TestDelays.LONG).until(() -> accepted.get() > total * 3L / 4);
        scheduler.shutdown();
        for (Thread t : threads) {
            t.join(TestDelays.LONG.toMillis());
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis() * 3, MILLISECONDS))
                .isTrue();
        assertThat(errors).isEmpty();
        int ran = 0;
        for (int id = 0; id < total; id++) {
            int f = fate.get(id);
            int r = runs.get(id);
            if (f == 1 && r == 0 && !runsEveryTaskAcceptedDuringShutdown()) {
                // Never left hanging: handled by the shutdown policy, its future complete.
                assertThat(futures.get(id).isCancelled())
                        .as("accepted task %d neither ran nor was cancelled", id)
                        .isTrue();
            } else if (f == 1) {
                assertThat(r).as("runs of accepted task %d", id).isEqualTo(1);
                ran++;
            } else if (f == 3) {
                // cancel() also succeeds on a task a worker has already claimed (its future is
                // not done yet), and the work may then begin after cancel() returned true: in the
                // JDK between FutureTask's state check and its call, in ours between the claim and
                // the call. So a cancelled task may have run once; never more.
                assertThat(r).as("runs of cancelled task %d", id).isLessThanOrEqualTo(1);
            } else {
                assertThat(r).as("runs of task %d with fate %d", id, f).isZero();
            }
        }
        assertThat(ran).isGreaterThan(total / 4);
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(TestDelays.LONG.toMillis(), MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
