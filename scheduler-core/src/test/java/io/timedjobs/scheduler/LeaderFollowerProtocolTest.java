package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The leader-follower protocol of the queue, observed through the workers' thread states. */
@Timeout(60)
class LeaderFollowerProtocolTest {

    private LeaderFollowerScheduler scheduler;

    @AfterEach
    void stop() throws InterruptedException {
        if (scheduler != null) {
            scheduler.shutdownNow();
            assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .isTrue();
        }
    }

    /** With eight idle workers and one task due in an hour, exactly one worker waits timed. */
    @Test
    void shouldLetExactlyOneWorkerWaitTimed() {
        scheduler = LeaderFollowerScheduler.builder().poolSize(8).build();
        scheduler.schedule(() -> {}, 1, HOURS);
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            List<Thread> workers = scheduler.pool().workerThreads();
            assertThat(workers).hasSize(8);
            assertThat(workers)
                    .filteredOn(t -> t.getState() == Thread.State.TIMED_WAITING)
                    .hasSize(1)
                    .containsExactly(scheduler.pool().queue().leader());
            assertThat(workers)
                    .filteredOn(t -> t.getState() == Thread.State.WAITING)
                    .hasSize(7);
        });
    }

    /**
     * One worker starts parked with the scheduler, untimed, and runs the first task without
     * waiting for any other thread to start: here the others cannot start until it ran.
     */
    @Test
    void shouldRunFirstTaskOnWorkerStartedWithScheduler() throws InterruptedException {
        CountDownLatch firstRan = new CountDownLatch(1);
        List<Thread> made = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.ThreadFactory threads = r -> {
            if (!made.isEmpty()) {
                ScheduledExecutorContractTest.awaitQuietly(firstRan);
            }
            Thread t = new Thread(r, "early-" + made.size());
            t.setDaemon(true);
            made.add(t);
            return t;
        };
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(3)
                .threadFactory(threads)
                .build();
        assertThat(made).hasSize(1);
        assertThat(scheduler.getPoolSize()).isOne();
        await().atMost(TestDelays.LONG).until(() -> made.get(0).getState() == Thread.State.WAITING);

        java.util.concurrent.atomic.AtomicReference<Thread> ranOn = new java.util.concurrent.atomic.AtomicReference<>();
        scheduler.execute(() -> {
            ranOn.set(Thread.currentThread());
            firstRan.countDown();
        });
        assertThat(firstRan.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThat(ranOn.get()).isSameAs(made.get(0));
        await().atMost(TestDelays.LONG).until(() -> scheduler.getPoolSize() == 3);
    }

    /** With nothing queued, no worker waits timed: an idle scheduler never wakes up. */
    @Test
    void shouldWaitUntimedWhenEmpty() {
        scheduler = LeaderFollowerScheduler.builder().poolSize(3).build();
        scheduler.execute(() -> {});
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            List<Thread> workers = scheduler.pool().workerThreads();
            assertThat(workers).hasSize(3).allMatch(t -> t.getState() == Thread.State.WAITING);
        });
    }

    /** A task inserted ahead of a far head wakes the leader and runs at its own time. */
    @Test
    void shouldRunTaskInsertedAheadOfFarHeadOnTime() throws Exception {
        scheduler = LeaderFollowerScheduler.builder().poolSize(2).build();
        AtomicInteger farRuns = new AtomicInteger();
        scheduler.schedule(farRuns::incrementAndGet, 1, HOURS);
        await().atMost(TestDelays.LONG).until(() -> scheduler.pool().queue().leader() != null);
        ScheduledFuture<String> near = scheduler.schedule(() -> "near", TestDelays.SHORT.toMillis(), MILLISECONDS);
        assertThat(near.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo("near");
        assertThat(farRuns).hasValue(0);
    }

    /**
     * Tasks submitted from several threads while the leader sleeps on a far head are never
     * stranded on the staging stack: each one runs without waiting for the far head.
     */
    @Test
    void shouldNeverStrandTasksSubmittedConcurrently() throws Exception {
        scheduler = LeaderFollowerScheduler.builder().poolSize(2).build();
        scheduler.schedule(() -> {}, 1, HOURS);
        int producers = 3;
        int rounds = 3_000;
        java.util.concurrent.ExecutorService submitters = java.util.concurrent.Executors.newFixedThreadPool(producers);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                done.add(submitters.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        // Wait for each task so that the leader goes back to sleep in between.
                        scheduler
                                .schedule(() -> {}, i % 4, java.util.concurrent.TimeUnit.MICROSECONDS)
                                .get(TestDelays.LONG.toMillis(), MILLISECONDS);
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(TestDelays.LONG.toMillis() * 3, MILLISECONDS);
            }
        } finally {
            submitters.shutdownNow();
        }
        // A future completes just before its worker counts the execution.
        await().atMost(TestDelays.LONG).until(() -> scheduler.getCompletedTaskCount() == (long) producers * rounds);
        assertThat(scheduler.getQueueSize()).isEqualTo(1);
    }

    /** Same, with a manual ticker: the near task runs when its time comes, the far one does not. */
    @Test
    void shouldRunNearTaskBeforeFarHeadWithManualTicker() {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(2).ticker(ticker).build();
        ScheduledFuture<String> far = scheduler.schedule(() -> "far", 1, HOURS);
        ScheduledFuture<String> near = scheduler.schedule(() -> "near", 1, SECONDS);
        ticker.advance(999, MILLISECONDS);
        assertThat(near.isDone()).isFalse();
        ticker.advance(1, MILLISECONDS);
        await().atMost(TestDelays.LONG).until(near::isDone);
        assertThat(far.isDone()).isFalse();
        assertThat(far.getDelay(SECONDS)).isEqualTo(3599);
    }

    /** Tasks with exactly equal due times run in submission order. */
    @Test
    void shouldRunEqualDueTimesFirstInFirstOut() {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(1).ticker(ticker).build();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        int n = 2_000;
        for (int i = 0; i < n; i++) {
            int id = i;
            scheduler.schedule(() -> order.add(id), 10, SECONDS);
        }
        ticker.advance(10, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> order.size() == n);
        assertThat(order).isSorted();
    }

    /**
     * Tasks spread over three hours (through the wheel's buckets, and past its reach) run in due
     * order and never before their due time, however far the ticker jumps at once.
     */
    @Test
    void shouldRunFarTasksInDueOrderNeverEarly() {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(1).ticker(ticker).build();
        java.util.Random random = new java.util.Random(42);
        int n = 3_000;
        long[] dues = new long[n];
        List<long[]> runs = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            long delay = (long) (random.nextDouble() * HOURS.toNanos(3));
            long due = ticker.read() + delay;
            dues[i] = due;
            scheduler.schedule(
                    () -> runs.add(new long[] {due, ticker.read()}), delay, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        java.util.Arrays.sort(dues);
        while (runs.size() < n) {
            ticker.advance(
                    (long) (random.nextDouble() * SECONDS.toNanos(150)), java.util.concurrent.TimeUnit.NANOSECONDS);
            long now = ticker.read();
            int due = 0;
            while (due < n && dues[due] <= now) {
                due++;
            }
            int expected = due;
            awaitSize(runs, expected);
        }
        assertRanInDueOrderNeverEarly(runs);
        assertThat(scheduler.getQueueSize()).isZero();
    }

    /**
     * Tasks that pass through the wheel into the sorted run keep the queue's order (due time, then
     * submission for equal times), also when some are cancelled while in the wheel and others
     * after their bucket moved on, shortly before they are due.
     */
    @Test
    void shouldKeepDueOrderThroughWheelAndRunWithCancellations() {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(1).ticker(ticker).build();
        java.util.Random random = new java.util.Random(7);
        int n = 4_000;
        long[] dues = new long[n];
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < n; i++) {
            long delayMillis = 1_000 + random.nextInt(9_000); // whole milliseconds: many equal due times
            dues[i] = ticker.read() + MILLISECONDS.toNanos(delayMillis);
            int id = i;
            futures.add(scheduler.schedule(() -> ran.add(id), delayMillis, MILLISECONDS));
        }
        java.util.Set<Integer> cancelled = new java.util.HashSet<>();
        for (int i = 0; i < n; i += 6) { // a sixth while still in the wheel
            assertThat(futures.get(i).cancel(false)).isTrue();
            cancelled.add(i);
        }
        long stepNanos = MILLISECONDS.toNanos(200);
        for (long elapsed = 0; elapsed <= SECONDS.toNanos(11); elapsed += stepNanos) {
            ticker.advance(stepNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
            long now = ticker.read();
            long expected = java.util.stream.IntStream.range(0, n)
                    .filter(i -> !cancelled.contains(i) && dues[i] <= now)
                    .count();
            awaitSize(ran, expected);
            // Another sixth just before they are due: their bucket has moved out of the wheel by now.
            for (int i = 3; i < n; i += 6) {
                if (!cancelled.contains(i) && dues[i] > now && dues[i] <= now + stepNanos) {
                    assertThat(futures.get(i).cancel(false)).isTrue();
                    cancelled.add(i);
                }
            }
        }
        List<Integer> expectedOrder = java.util.stream.IntStream.range(0, n)
                .filter(i -> !cancelled.contains(i))
                .boxed()
                .sorted(java.util.Comparator.<Integer>comparingLong(i -> dues[i])
                        .thenComparingInt(i -> i))
                .toList();
        assertThat(ran).containsExactlyElementsOf(expectedOrder);
        assertThat(cancelled).hasSizeGreaterThan(n / 4);
        assertThat(scheduler.getQueueSize()).isZero();
    }

    /**
     * Due tasks that a worker took out of the heap together, to be claimed one by one, still count
     * as queued, and shutdownNow returns them, in due order, with the rest.
     */
    @Test
    void shouldCountAndReturnDueTasksTakenTogether() throws Exception {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(1).ticker(ticker).build();
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        futures.add(scheduler.schedule(
                () -> {
                    started.countDown();
                    release.await();
                    return null;
                },
                1,
                SECONDS));
        for (int i = 1; i < 100; i++) {
            futures.add(scheduler.schedule(() -> {}, 1, SECONDS));
        }
        ticker.advance(1, SECONDS);
        assertThat(started.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThat(scheduler.getQueueSize()).isEqualTo(99);
        List<Runnable> neverRan = scheduler.shutdownNow();
        release.countDown();
        assertThat(neverRan)
                .containsExactlyElementsOf(futures.subList(1, 100).stream()
                        .map(Runnable.class::cast)
                        .toList());
    }

    /**
     * Many tasks due at one instant, drained by several workers that claim them from shared
     * batches: each one runs exactly once, also while another thread cancels some of them.
     */
    @Test
    void shouldRunEveryTaskOfABurstExactlyOnce() throws Exception {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(4).ticker(ticker).build();
        int n = 20_000;
        java.util.concurrent.atomic.AtomicIntegerArray runs = new java.util.concurrent.atomic.AtomicIntegerArray(n);
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int id = i;
            futures.add(scheduler.schedule(() -> runs.incrementAndGet(id), 1, SECONDS));
        }
        boolean[] cancelled = new boolean[n];
        Thread canceller = new Thread(() -> {
            for (int i = n - 1; i >= 0; i -= 5) {
                cancelled[i] = futures.get(i).cancel(false);
            }
        });
        ticker.advance(1, SECONDS);
        canceller.start();
        canceller.join(TestDelays.LONG.toMillis());
        assertThat(canceller.isAlive()).isFalse();
        await().pollInterval(java.time.Duration.ofMillis(5))
                .atMost(TestDelays.LONG)
                .until(() -> futures.stream().allMatch(ScheduledFuture::isDone));
        for (int i = 0; i < n; i++) {
            if (cancelled[i]) {
                assertThat(runs.get(i)).as("runs of cancelled task %d", i).isLessThanOrEqualTo(1);
            } else {
                assertThat(runs.get(i)).as("runs of task %d", i).isEqualTo(1);
            }
        }
        await().atMost(TestDelays.LONG).until(() -> scheduler.getQueueSize() == 0);
    }

    /**
     * Tasks due after the sleeping leader's wake-up time may wait on their producers' stripes
     * without the lock: they count as queued at once, run in due order and never early, and
     * shutdownNow returns those that never ran.
     */
    @Test
    void shouldRunTasksLeftOnStripesInDueOrder() throws Exception {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(1).ticker(ticker).build(); // one worker: strict order
        List<long[]> runs = Collections.synchronizedList(new ArrayList<>());
        scheduler.schedule(() -> runs.add(new long[] {-1, ticker.read()}), 10, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> scheduler.pool().queue().leader() != null);
        int producers = 3;
        int perProducer = 1_000;
        long start = ticker.read();
        List<Long> dues = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int seed = p;
            threads.add(new Thread(() -> {
                java.util.Random random = new java.util.Random(seed);
                for (int i = 0; i < perProducer; i++) {
                    long delay = SECONDS.toNanos(20) + (long) (random.nextDouble() * SECONDS.toNanos(40));
                    long due = start + delay;
                    dues.add(due);
                    scheduler.schedule(
                            () -> runs.add(new long[] {due, ticker.read()}),
                            delay,
                            java.util.concurrent.TimeUnit.NANOSECONDS);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TestDelays.LONG.toMillis());
        }
        assertThat(scheduler.getQueueSize()).isEqualTo(1 + producers * perProducer);
        ticker.advance(10, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> runs.size() == 1);
        for (int step = 0; step < 51; step++) { // to 61 s: past the last due time
            ticker.advance(1, SECONDS);
            long now = ticker.read();
            long expected = 1 + dues.stream().filter(d -> d <= now).count();
            awaitSize(runs, expected);
        }
        assertThat(runs).hasSize(1 + producers * perProducer);
        assertRanInDueOrderNeverEarly(runs);
        assertThat(scheduler.getQueueSize()).isZero();
    }

    /** Tasks still on their stripes when shutdownNow comes are returned with the rest. */
    @Test
    void shouldReturnTasksLeftOnStripesOnShutdownNow() throws Exception {
        ManualTicker ticker = new ManualTicker();
        scheduler = LeaderFollowerScheduler.builder().poolSize(2).ticker(ticker).build();
        scheduler.schedule(() -> {}, 10, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> scheduler.pool().queue().leader() != null);
        List<ScheduledFuture<?>> late = new ArrayList<>();
        Thread producer = new Thread(() -> {
            for (int i = 0; i < 500; i++) {
                late.add(scheduler.schedule(() -> {}, 20 + i, SECONDS));
            }
        });
        producer.start();
        producer.join(TestDelays.LONG.toMillis());
        assertThat(scheduler.getQueueSize()).isEqualTo(501);
        List<Runnable> neverRan = scheduler.shutdownNow();
        assertThat(neverRan)
                .hasSize(501)
                .containsAll(late.stream().map(Runnable.class::cast).toList());
    }

    /**
     * With virtual threads, shutdownNow returns every task whose own thread has not begun it, so
     * none is cancelled instead of returned: each of many due tasks ran or is returned, not both.
     */
    @ParameterizedTest(name = "pool size {0}")
    @ValueSource(ints = {1, 2})
    @EnabledForJreRange(min = JRE.JAVA_21)
    @Timeout(120)
    void shouldReturnTasksNotBegunOnTheirOwnThreadsOnShutdownNow(int poolSize) throws Exception {
        for (int trial = 0; trial < 5; trial++) {
            scheduler = LeaderFollowerScheduler.builder()
                    .poolSize(poolSize)
                    .virtualThreads(true)
                    .build();
            ScheduledExecutorContractTest.ShutdownNowTally tally =
                    ScheduledExecutorContractTest.shutdownNowWhileDraining(scheduler, 100_000, 1_000);
            assertThat(tally.ranAndReturned())
                    .as("returned tasks that also ran")
                    .isZero();
            assertThat(tally.neitherRanNorReturned())
                    .as("tasks cancelled instead of returned, trial %d", trial)
                    .isZero();
        }
    }

    /** Waits, polling closely, until a list of runs has the expected size. */
    private static void awaitSize(List<?> list, long expected) {
        await().pollDelay(java.time.Duration.ZERO)
                .pollInterval(java.time.Duration.ofMillis(1))
                .atMost(TestDelays.LONG)
                .until(() -> list.size() == expected);
    }

    /** Asserts that runs, each {due, start}, started in due order and never before their due time. */
    private static void assertRanInDueOrderNeverEarly(List<long[]> runs) {
        long previousDue = Long.MIN_VALUE;
        for (long[] run : runs) {
            assertThat(run[1]).as("start of task due at %d", run[0]).isGreaterThanOrEqualTo(run[0]);
            assertThat(run[0]).isGreaterThanOrEqualTo(previousDue);
            previousDue = run[0];
        }
    }

    /** Ordering stays right when the ticker's reading wraps around past Long.MAX_VALUE. */
    @Test
    void shouldOrderTasksAcrossTickerWrapAround() {
        ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - SECONDS.toNanos(5), java.time.Instant.EPOCH);
        scheduler = LeaderFollowerScheduler.builder().poolSize(1).ticker(ticker).build();
        ScheduledFuture<String> late = scheduler.schedule(() -> "late", 10, SECONDS);
        ScheduledFuture<String> early = scheduler.schedule(() -> "early", 3, SECONDS);
        ScheduledFuture<String> huge = scheduler.schedule(() -> "huge", Long.MAX_VALUE, SECONDS);
        ticker.advance(3, SECONDS);
        await().atMost(TestDelays.LONG).until(early::isDone);
        assertThat(late.isDone()).isFalse();
        ticker.advance(7, SECONDS);
        await().atMost(TestDelays.LONG).until(late::isDone);
        assertThat(huge.isDone()).isFalse();
        assertThat(huge.getDelay(java.util.concurrent.TimeUnit.DAYS)).isGreaterThan(365L * 100);
    }
}
