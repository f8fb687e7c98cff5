package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.MutableClock;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fixed-rate, fixed-delay and rule-driven repetition, driven by a manual ticker so that every time
 * is exact.
 */
@Timeout(60)
class RepetitionTest {

    private final ManualTicker ticker = new ManualTicker();
    private final List<Long> starts = Collections.synchronizedList(new ArrayList<>());
    private LeaderFollowerScheduler scheduler;

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    private LeaderFollowerScheduler build(MisfirePolicy policy) {
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .ticker(ticker)
                .misfirePolicy(policy)
                .build();
        return scheduler;
    }

    private void recordStart() {
        starts.add(SECONDS.convert(ticker.read(), java.util.concurrent.TimeUnit.NANOSECONDS));
    }

    /** Waits until the task has run {@code runs} times and is back in the queue. */
    private void awaitRunsAndRequeue(int runs) {
        await().atMost(TestDelays.LONG)
                .until(() -> starts.size() == runs && scheduler.getQueueSize() == 1 && scheduler.getActiveCount() == 0);
    }

    /** CATCH_UP runs every missed fixed-rate slot back to back, like the JDK. */
    @Test
    void shouldCatchUpMissedSlots() {
        ScheduledFuture<?> future =
                build(MisfirePolicy.CATCH_UP).scheduleAtFixedRate(this::recordStart, 0, 10, SECONDS);
        awaitRunsAndRequeue(1);
        ticker.advance(35, SECONDS);
        awaitRunsAndRequeue(4);
        assertThat(starts).containsExactly(0L, 35L, 35L, 35L);
        assertThat(future.getDelay(SECONDS)).isEqualTo(5);
    }

    /** SKIP runs the overdue execution once, then moves to the next slot of the original rhythm. */
    @Test
    void shouldSkipMissedSlots() {
        ScheduledFuture<?> future = build(MisfirePolicy.SKIP).scheduleAtFixedRate(this::recordStart, 0, 10, SECONDS);
        awaitRunsAndRequeue(1);
        ticker.advance(35, SECONDS);
        awaitRunsAndRequeue(2);
        assertThat(future.getDelay(SECONDS)).isEqualTo(5);
        ticker.advance(5, SECONDS);
        awaitRunsAndRequeue(3);
        assertThat(starts).containsExactly(0L, 35L, 40L);
        assertThat(future.getDelay(SECONDS)).isEqualTo(10);
    }

    /** SKIP drops only slots in the past: a slot that falls exactly on "now" still runs. */
    @Test
    void shouldNotSkipSlotDueExactlyNow() {
        ScheduledFuture<?> future = build(MisfirePolicy.SKIP).scheduleAtFixedRate(this::recordStart, 0, 10, SECONDS);
        awaitRunsAndRequeue(1);
        ticker.advance(20, SECONDS);
        awaitRunsAndRequeue(3);
        assertThat(starts).containsExactly(0L, 20L, 20L);
        assertThat(future.getDelay(SECONDS)).isEqualTo(10);
    }

    /** Fixed rate keeps its rhythm even when an execution takes time. */
    @Test
    void shouldKeepFixedRateRhythm() {
        ScheduledFuture<?> future = build(MisfirePolicy.CATCH_UP)
                .scheduleAtFixedRate(
                        () -> {
                            recordStart();
                            ticker.advance(3, SECONDS); // the run takes three seconds
                        },
                        10,
                        10,
                        SECONDS);
        ticker.advance(10, SECONDS);
        awaitRunsAndRequeue(1);
        assertThat(future.getDelay(SECONDS)).isEqualTo(7);
    }

    /** Fixed delay: the next execution is due the delay after the previous one completed. */
    @Test
    void shouldScheduleFixedDelayFromCompletion() {
        ScheduledFuture<?> future = build(MisfirePolicy.CATCH_UP)
                .scheduleWithFixedDelay(
                        () -> {
                            recordStart();
                            ticker.advance(3, SECONDS);
                        },
                        10,
                        10,
                        SECONDS);
        ticker.advance(10, SECONDS);
        awaitRunsAndRequeue(1);
        assertThat(future.getDelay(SECONDS)).isEqualTo(10);
        ticker.advance(10, SECONDS);
        awaitRunsAndRequeue(2);
        assertThat(starts).containsExactly(10L, 23L);
    }

    /** A rule-driven task runs at each instant its rule returns and completes when it returns null. */
    @Test
    void shouldFollowRecurrenceUntilItEnds() throws Exception {
        build(MisfirePolicy.CATCH_UP);
        Instant origin = ticker.clock().instant();
        List<String> contexts = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger calls = new AtomicInteger();
        ScheduledFuture<?> future = scheduler.schedule(this::recordStart, context -> {
            contexts.add(context.lastScheduled() + "/" + context.lastStarted() + "/" + context.lastCompleted());
            int n = calls.incrementAndGet();
            return n > 3 ? null : origin.plusSeconds(10L * n);
        });
        assertThat((Object) future).isNotNull();
        for (int i = 1; i <= 3; i++) {
            ticker.advance(10, SECONDS);
            int runs = i;
            await().atMost(TestDelays.LONG).until(() -> starts.size() == runs && calls.get() == runs + 1);
        }
        assertThat(future.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(starts).containsExactly(10L, 20L, 30L);
        assertThat(contexts.get(0)).isEqualTo("null/null/null");
        assertThat(contexts.get(1))
                .isEqualTo(origin.plusSeconds(10) + "/" + origin.plusSeconds(10) + "/" + origin.plusSeconds(10));
        assertThat(scheduler.getQueueSize()).isZero();
    }

    /** A rule without a first execution schedules nothing. */
    @Test
    void shouldReturnNullWhenRecurrenceNeverFires() {
        build(MisfirePolicy.CATCH_UP);
        assertThat((Object) scheduler.schedule(this::recordStart, context -> null))
                .isNull();
        assertThat(scheduler.getQueueSize()).isZero();
    }

    /** A rule that throws ends its task with that exception. */
    @Test
    void shouldFailTaskWhenRecurrenceThrows() {
        build(MisfirePolicy.CATCH_UP);
        Instant origin = ticker.clock().instant();
        ScheduledFuture<?> future = scheduler.schedule(this::recordStart, context -> {
            if (context.lastStarted() != null) {
                throw new IllegalStateException("no next");
            }
            return origin.plusSeconds(1);
        });
        ticker.advance(1, SECONDS);
        assertThatThrownBy(() -> future.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("no next");
    }

    /**
     * A rule-driven task never starts before its wall-clock instant, even when the ticker says it
     * is due: here the wall clock runs a second behind the ticker.
     */
    @Test
    void shouldNeverStartRecurringTaskBeforeItsWallClockInstant() {
        MutableClock clock = new MutableClock(Instant.parse("2026-06-01T12:00:00Z"));
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .ticker(ticker)
                .clock(clock)
                .build();
        Instant due = clock.instant().plusSeconds(10);
        List<Instant> startedAt = Collections.synchronizedList(new ArrayList<>());
        ScheduledFuture<?> future = scheduler.schedule(
                () -> startedAt.add(clock.instant()), context -> context.lastStarted() == null ? due : null);
        clock.advance(Duration.ofSeconds(9));
        ticker.advance(10, SECONDS);
        // The worker sees the task due by the ticker, checks the wall clock and puts it back for
        // the second that the wall clock still lacks.
        await().atMost(TestDelays.LONG)
                .until(() -> future.getDelay(MILLISECONDS) == 1_000 && scheduler.getQueueSize() == 1);
        assertThat(startedAt).isEmpty();
        clock.advance(Duration.ofSeconds(1));
        ticker.advance(1, SECONDS);
        await().atMost(TestDelays.LONG).until(() -> startedAt.size() == 1);
        assertThat(startedAt.get(0)).isAfterOrEqualTo(due);
    }

    /** Recurrence times come from the scheduler's clock, which the builder can set. */
    @Test
    void shouldHandRecurrenceTheSchedulerClock() {
        MutableClock clock = new MutableClock(Instant.parse("2030-01-01T00:00:00Z"));
        scheduler = LeaderFollowerScheduler.builder()
                .poolSize(1)
                .ticker(ticker)
                .clock(clock)
                .build();
        List<Instant> seen = new ArrayList<>();
        scheduler.schedule(this::recordStart, context -> {
            seen.add(context.clock().instant());
            return null;
        });
        assertThat(seen).containsExactly(Instant.parse("2030-01-01T00:00:00Z"));
        assertThat(scheduler.getClock()).isSameAs(clock);
    }
}
