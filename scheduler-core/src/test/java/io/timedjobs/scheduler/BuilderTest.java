package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** Builder options and their validation. */
class BuilderTest {

    /** Pool sizes below one are refused with a message naming the option. */
    @Test
    void shouldRejectPoolSizeBelowOne() {
        assertThatThrownBy(() -> LeaderFollowerScheduler.builder().poolSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("poolSize");
        assertThatThrownBy(() -> LeaderFollowerScheduler.builder().poolSize(-3))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Null options are refused with NullPointerException naming the option. */
    @Test
    void shouldRejectNullOptions() {
        LeaderFollowerScheduler.Builder builder = LeaderFollowerScheduler.builder();
        assertThatThrownBy(() -> builder.ticker(null)).hasMessageContaining("ticker");
        assertThatThrownBy(() -> builder.clock(null)).hasMessageContaining("clock");
        assertThatThrownBy(() -> builder.threadFactory(null)).hasMessageContaining("threadFactory");
        assertThatThrownBy(() -> builder.threadNamePrefix(null)).hasMessageContaining("threadNamePrefix");
        assertThatThrownBy(() -> builder.misfirePolicy(null)).hasMessageContaining("misfirePolicy");
        assertThatThrownBy(() -> builder.errorHandler(null)).hasMessageContaining("errorHandler");
        assertThatThrownBy(() -> builder.executionListener(null)).hasMessageContaining("executionListener");
        LeaderFollowerScheduler scheduler = builder.build();
        assertThatThrownBy(() -> scheduler.schedule(() -> {}, (Recurrence) null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> scheduler.schedule(null, ctx -> null)).isInstanceOf(NullPointerException.class);
        scheduler.shutdown();
    }

    /**
     * A ticker that does not move with real time and does not wake the scheduler as it moves is
     * refused at build, naming it, rather than leaving a leader that waits forever.
     */
    @Test
    void shouldRefuseATickerThatNeitherMovesWithRealTimeNorWakesTheScheduler() {
        Ticker stopped = new Ticker() {
            @Override
            public long read() {
                return 0L;
            }

            @Override
            public boolean movesWithRealTime() {
                return false;
            }

            @Override
            public String toString() {
                return "StoppedTicker";
            }
        };
        assertThatThrownBy(
                        () -> LeaderFollowerScheduler.builder().ticker(stopped).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("StoppedTicker")
                .hasMessageContaining("does not move with real time");
        LeaderFollowerScheduler manual =
                LeaderFollowerScheduler.builder().ticker(new ManualTicker()).build();
        manual.shutdown();
    }

    /** Workers are named with the prefix, are not daemons by default, and can be daemons. */
    @Test
    void shouldNameWorkerThreads() throws Exception {
        LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .threadNamePrefix("billing-")
                .build();
        Thread worker = scheduler.submit(Thread::currentThread).get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(worker.getName()).isEqualTo("billing-1");
        assertThat(worker.isDaemon()).isFalse();
        scheduler.shutdown();

        LeaderFollowerScheduler daemons =
                LeaderFollowerScheduler.builder().poolSize(1).daemon(true).build();
        assertThat(daemons.submit(() -> Thread.currentThread().isDaemon())
                        .get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        daemons.shutdown();
        assertThat(daemons.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** The default pool has one worker per processor, and at least two. */
    @Test
    void shouldDefaultToProcessorsAtLeastTwo() {
        LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder().build();
        assertThat(scheduler.getCorePoolSize())
                .isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
        assertThat(scheduler.getTicker()).isSameAs(Ticker.system());
        scheduler.shutdown();
    }

    /** On Java 17 to 20, asking for virtual threads fails at build time with a clear message. */
    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void shouldRefuseVirtualThreadsBeforeJava21() {
        assertThatThrownBy(() ->
                        LeaderFollowerScheduler.builder().virtualThreads(true).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Java 21");
    }

    /** On Java 21 and later, the workers can be virtual threads. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldRunOnVirtualThreads() throws Exception {
        LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder()
                .poolSize(2)
                .virtualThreads(true)
                .threadNamePrefix("virtual-")
                .build();
        Thread worker = scheduler.submit(Thread::currentThread).get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat((Boolean) Thread.class.getMethod("isVirtual").invoke(worker)).isTrue();
        assertThat(worker.getName()).startsWith("virtual-");
        scheduler.shutdown();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /**
     * With virtual threads, six slow tasks due together all start at once on threads of their own,
     * though the pool has two workers; termination waits for them.
     */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldStartEveryDueTaskAtOnceOnVirtualThreads() throws Exception {
        ManualTicker ticker = new ManualTicker();
        LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder()
                .poolSize(2)
                .virtualThreads(true)
                .ticker(ticker)
                .build();
        java.util.concurrent.CountDownLatch allStarted = new java.util.concurrent.CountDownLatch(6);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 6; i++) {
            scheduler.schedule(
                    () -> {
                        threads.add(Thread.currentThread());
                        allStarted.countDown();
                        ScheduledExecutorContractTest.awaitQuietly(release);
                    },
                    10,
                    TimeUnit.MILLISECONDS);
        }
        ticker.advance(10, TimeUnit.MILLISECONDS);
        assertThat(allStarted.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThat(threads).hasSize(6);
        for (Thread thread : threads) {
            assertThat((Boolean) Thread.class.getMethod("isVirtual").invoke(thread))
                    .isTrue();
        }
        assertThat(scheduler.getActiveCount()).isEqualTo(6);
        scheduler.shutdown();
        assertThat(scheduler.awaitTermination(TestDelays.SMALL_WINDOW.toMillis(), MILLISECONDS))
                .as("six tasks still run")
                .isFalse();
        release.countDown();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** With virtual threads and a concurrency limit, tasks beyond it start as running ones end. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldHoldTasksBeyondConcurrencyLimit() throws Exception {
        ManualTicker ticker = new ManualTicker();
        LeaderFollowerScheduler scheduler = LeaderFollowerScheduler.builder()
                .poolSize(2)
                .virtualThreads(true)
                .concurrencyLimit(3)
                .ticker(ticker)
                .build();
        java.util.concurrent.Semaphore started = new java.util.concurrent.Semaphore(0);
        java.util.concurrent.Semaphore finish = new java.util.concurrent.Semaphore(0);
        for (int i = 0; i < 5; i++) {
            scheduler.schedule(
                    () -> {
                        started.release();
                        finish.acquireUninterruptibly();
                    },
                    10,
                    TimeUnit.MILLISECONDS);
        }
        ticker.advance(10, TimeUnit.MILLISECONDS);
        assertThat(started.tryAcquire(3, TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        assertThat(started.tryAcquire(TestDelays.SMALL_WINDOW.toMillis(), MILLISECONDS))
                .as("a fourth task beyond the limit")
                .isFalse();
        finish.release(2);
        assertThat(started.tryAcquire(2, TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        finish.release(3);
        scheduler.shutdown();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    /** A concurrency limit without virtual threads is refused at build time, not ignored. */
    @Test
    void shouldRefuseConcurrencyLimitWithoutVirtualThreads() {
        assertThatThrownBy(() ->
                        LeaderFollowerScheduler.builder().concurrencyLimit(4).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("virtual threads");
        assertThatThrownBy(() -> LeaderFollowerScheduler.builder().concurrencyLimit(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** close() shuts down and waits for the remaining tasks, for try-with-resources. */
    @Test
    void shouldRunRemainingTasksOnClose() {
        java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
        LeaderFollowerScheduler closed;
        try (LeaderFollowerScheduler scheduler =
                LeaderFollowerScheduler.builder().poolSize(2).build()) {
            for (int i = 0; i < 10; i++) {
                scheduler.schedule(ran::incrementAndGet, i, TimeUnit.MILLISECONDS);
            }
            closed = scheduler;
        }
        assertThat(closed.isTerminated()).isTrue();
        assertThat(ran).hasValue(10);
    }

    /** A manual ticker moves only forward, and its clock moves with it. */
    @Test
    void shouldMoveManualTickerAndClockTogether() {
        ManualTicker ticker = new ManualTicker();
        var start = ticker.clock().instant();
        ticker.advance(Duration.ofMinutes(3));
        ticker.advance(500, TimeUnit.MILLISECONDS);
        assertThat(ticker.read())
                .isEqualTo(Duration.ofMinutes(3).plusMillis(500).toNanos());
        assertThat(ticker.clock().instant())
                .isEqualTo(start.plus(Duration.ofMinutes(3).plusMillis(500)));
        assertThatThrownBy(() -> ticker.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ticker.advance(-1, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    }
}
