package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
