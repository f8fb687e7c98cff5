package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.spring.JobFate.Outcome;
import io.timedjobs.scheduler.spring.JobFate.SkipReason;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What became of each fire of a local job on this instance: runs, failures and skips, bounded. */
class JobFatesTest {

    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private final ManualTicker ticker = new ManualTicker(0L, ORIGIN);
    private final LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();

    JobFatesTest() {
        scheduler.setPoolSize(1);
        scheduler.setTicker(ticker);
        scheduler.setThreadNamePrefix("fates-test-");
        scheduler.initialize();
    }

    @AfterEach
    void shutDown() {
        scheduler.shutdown();
    }

    private TrackedJob onlyJob() {
        assertThat(scheduler.getJobRegistry().jobs()).hasSize(1);
        return scheduler.getJobRegistry().jobs().get(0);
    }

    private static void awaitFates(TrackedJob job, int fates) {
        await().atMost(TestDelays.LONG).until(() -> job.fates().size() == fates);
    }

    /** A run keeps its nominal fire, start and outcome; a failure its message and its stack trace. */
    @Test
    void shouldKeepEachRunAndFailureWithItsStackTrace() {
        AtomicInteger calls = new AtomicInteger();
        scheduler.scheduleAtFixedRate(
                () -> {
                    if (calls.incrementAndGet() == 2) {
                        throw new IllegalStateException("disk full");
                    }
                },
                ORIGIN.plusSeconds(10),
                Duration.ofSeconds(10));
        TrackedJob job = onlyJob();

        ticker.advance(12, TimeUnit.SECONDS);
        awaitFates(job, 1);
        ticker.advance(10, TimeUnit.SECONDS);
        awaitFates(job, 2);

        List<JobFate> fates = job.fates();
        JobFate failed = fates.get(0);
        JobFate ran = fates.get(1);
        assertThat(ran.outcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(ran.fireAt()).isEqualTo(ORIGIN.plusSeconds(10));
        assertThat(ran.startedAt()).isEqualTo(ORIGIN.plusSeconds(12));
        assertThat(ran.error()).isNull();
        assertThat(failed.outcome()).isEqualTo(Outcome.FAILED);
        assertThat(failed.fireAt()).isEqualTo(ORIGIN.plusSeconds(20));
        assertThat(failed.error()).isEqualTo("java.lang.IllegalStateException: disk full");
        assertThat(failed.stackTrace())
                .startsWith("java.lang.IllegalStateException: disk full")
                .contains("at io.timedjobs.scheduler.spring.JobFatesTest")
                .hasSizeLessThanOrEqualTo(JobFate.STACK_TRACE_LENGTH);
        assertThat(failed.sequence()).isGreaterThan(ran.sequence());
    }

    /** A fire that comes due while the job is paused is kept as skipped, with the reason PAUSED. */
    @Test
    void shouldKeepFiresSkippedWhilePaused() {
        AtomicInteger calls = new AtomicInteger();
        scheduler.scheduleAtFixedRate(calls::incrementAndGet, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));
        TrackedJob job = onlyJob();
        job.pause();

        ticker.advance(10, TimeUnit.SECONDS);
        awaitFates(job, 1);

        JobFate skipped = job.fates().get(0);
        assertThat(skipped.outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(skipped.skipReason()).isEqualTo(SkipReason.PAUSED);
        assertThat(skipped.fireAt()).isEqualTo(ORIGIN.plusSeconds(10));
        assertThat(skipped.startedAt()).isNull();
        assertThat(calls).hasValue(0);
    }

    /**
     * A fire that came due while the scheduler was stopped, and whose wait the shutdown interrupted,
     * is kept as skipped, with the reason STOPPING.
     */
    @Test
    void shouldKeepFiresSkippedWhileStopping() {
        AtomicInteger calls = new AtomicInteger();
        scheduler.scheduleAtFixedRate(calls::incrementAndGet, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));
        TrackedJob job = onlyJob();
        scheduler.stop();
        ticker.advance(10, TimeUnit.SECONDS);
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().getActiveCount() == 1);

        scheduler.getScheduledExecutor().shutdownNow();
        awaitFates(job, 1);

        JobFate skipped = job.fates().get(0);
        assertThat(skipped.outcome()).isEqualTo(Outcome.SKIPPED);
        assertThat(skipped.skipReason()).isEqualTo(SkipReason.STOPPING);
        assertThat(calls).hasValue(0);
    }

    /**
     * The fire a shutdown drops (queued tasks cancelled at once) is kept as skipped with the reason
     * STOPPING, at its nominal instant, and the job stays listed with it.
     */
    @Test
    void shouldKeepTheFireDroppedByTheShutdownAsStopping() {
        AtomicInteger calls = new AtomicInteger();
        scheduler.scheduleAtFixedRate(calls::incrementAndGet, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));
        TrackedJob job = onlyJob();
        ticker.advance(12, TimeUnit.SECONDS);
        awaitFates(job, 1);

        scheduler.shutdown();

        assertThat(job.fates())
                .extracting(JobFate::outcome, JobFate::skipReason, JobFate::fireAt, JobFate::fires)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                Outcome.SKIPPED, SkipReason.STOPPING, ORIGIN.plusSeconds(20), 1L),
                        org.assertj.core.groups.Tuple.tuple(Outcome.SUCCEEDED, null, ORIGIN.plusSeconds(10), 1L));
        assertThat(scheduler.getJobRegistry().jobs()).containsExactly(job);
        assertThat(calls).hasValue(1);
    }

    /**
     * A graceful shutdown that waits for a running job drops the job's next fire once the run
     * ends: that fire is kept as STOPPING at its nominal instant, after the run.
     */
    @Test
    void shouldKeepTheNextFireOfAJobRunningAtAGracefulShutdownAsStopping() throws Exception {
        LeaderFollowerTaskScheduler graceful = new LeaderFollowerTaskScheduler();
        graceful.setPoolSize(1);
        graceful.setTicker(ticker);
        graceful.setThreadNamePrefix("fates-graceful-");
        graceful.setWaitForTasksToCompleteOnShutdown(true);
        graceful.setAwaitTerminationPeriod(TestDelays.LONG);
        graceful.initialize();
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        graceful.schedule(
                () -> {
                    running.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                new org.springframework.scheduling.support.CronTrigger("*/10 * * * * *", java.time.ZoneOffset.UTC));
        TrackedJob job = graceful.getJobRegistry().jobs().get(0);
        ticker.advance(10, TimeUnit.SECONDS);
        assertThat(running.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();

        Thread closing = new Thread(graceful::shutdown, "fates-closing");
        closing.start();
        await().atMost(TestDelays.LONG)
                .until(() -> graceful.getScheduledExecutor().isShutdown());
        release.countDown();
        closing.join(TestDelays.LONG.toMillis());

        assertThat(closing.isAlive()).isFalse();
        assertThat(job.fates())
                .extracting(JobFate::outcome, JobFate::skipReason, JobFate::fireAt)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                Outcome.SKIPPED, SkipReason.STOPPING, ORIGIN.plusSeconds(20)),
                        org.assertj.core.groups.Tuple.tuple(Outcome.SUCCEEDED, null, ORIGIN.plusSeconds(10)));
    }

    /** A future the test cancels, due a fixed time from now. */
    private static final class CancelledLater extends java.util.concurrent.CompletableFuture<Object>
            implements java.util.concurrent.ScheduledFuture<Object> {
        private final long delayNanos;

        CancelledLater(Duration delay) {
            this.delayNanos = delay.toNanos();
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(java.util.concurrent.Delayed other) {
            return Long.compare(delayNanos, other.getDelay(TimeUnit.NANOSECONDS));
        }
    }

    /**
     * The engine drops a running job's next fire before the run is recorded: a read in between
     * leaves the dropped fire for later, so that its fate follows the run's.
     */
    @Test
    void shouldRecordTheDroppedFireAfterTheRunThatPrecededIt() {
        java.time.Clock clock = java.time.Clock.fixed(ORIGIN.plusSeconds(12), java.time.ZoneOffset.UTC);
        TrackedJob job = new TrackedJob("drop", "every 10s", false, false, () -> {}, clock);
        CancelledLater future = new CancelledLater(Duration.ofSeconds(8));
        job.attach(future);
        job.shutdownBegins();
        job.entered();
        future.cancel(false);

        assertThat(job.fates()).as("read between the drop and the run's record").isEmpty();
        job.record(Duration.ofSeconds(2).toNanos(), 0L, io.timedjobs.scheduler.ExecutionListener.Outcome.SUCCEEDED);

        assertThat(job.fates())
                .extracting(JobFate::outcome, JobFate::fireAt)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Outcome.SKIPPED, ORIGIN.plusSeconds(20)),
                        org.assertj.core.groups.Tuple.tuple(Outcome.SUCCEEDED, ORIGIN.plusSeconds(10)));
    }

    /** A job cancelled before the shutdown leaves the registry and gets no STOPPING fate from it. */
    @Test
    void shouldGiveNoStoppingFateToAJobCancelledBeforeTheShutdown() {
        java.util.concurrent.ScheduledFuture<?> future =
                scheduler.scheduleAtFixedRate(() -> {}, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));
        TrackedJob job = onlyJob();
        future.cancel(false);

        scheduler.shutdown();

        assertThat(job.fates()).isEmpty();
        assertThat(scheduler.getJobRegistry().jobs()).isEmpty();
    }

    /** The fates kept per job are bounded: the oldest give way, the latest come first. */
    @Test
    void shouldKeepOnlyTheLatestFates() {
        JobFates fates = new JobFates(3);
        for (int i = 0; i < 5; i++) {
            fates.skipped(ORIGIN.plusSeconds(i), i % 2 == 0 ? SkipReason.PAUSED : SkipReason.STOPPING);
        }
        assertThat(fates.latestFirst())
                .extracting(JobFate::fireAt)
                .containsExactly(ORIGIN.plusSeconds(4), ORIGIN.plusSeconds(3), ORIGIN.plusSeconds(2));
    }

    /**
     * Consecutive fires skipped for one reason make one fate with their range and count, so a long
     * pause keeps the run before it.
     */
    @Test
    void shouldCoalesceConsecutiveSkipsOfOneReason() {
        JobFates fates = new JobFates(3);
        fates.ran(ORIGIN, ORIGIN, 1_000L, new IllegalStateException("disk full"));
        for (int i = 1; i <= 300; i++) {
            fates.skipped(ORIGIN.plusSeconds(i), SkipReason.PAUSED);
        }
        fates.skipped(ORIGIN.plusSeconds(301), SkipReason.STOPPING);

        assertThat(fates.latestFirst())
                .extracting(JobFate::skipReason, JobFate::fireAt, JobFate::fireUntil, JobFate::fires)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                SkipReason.STOPPING, ORIGIN.plusSeconds(301), ORIGIN.plusSeconds(301), 1L),
                        org.assertj.core.groups.Tuple.tuple(
                                SkipReason.PAUSED, ORIGIN.plusSeconds(1), ORIGIN.plusSeconds(300), 300L),
                        org.assertj.core.groups.Tuple.tuple(null, ORIGIN, ORIGIN, 1L));
        assertThat(fates.latestFirst().get(2).error()).isEqualTo("java.lang.IllegalStateException: disk full");
    }

    /** A fire skipped while paused is kept at its nominal fire, not at the moment a worker reached it. */
    @Test
    void shouldKeepASkipAtItsNominalFire() {
        scheduler.scheduleAtFixedRate(() -> {}, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));
        TrackedJob job = onlyJob();
        job.pause();

        ticker.advance(13, TimeUnit.SECONDS);
        awaitFates(job, 1);

        assertThat(job.fates().get(0).fireAt()).isEqualTo(ORIGIN.plusSeconds(10));
    }

    /** Two runs of one job that overlap (a run now during a scheduled run) keep their own failures. */
    @Test
    void shouldKeepEachOverlappingRunsOwnFailure() throws Exception {
        TrackedJob job = new TrackedJob("overlap", "fixed rate", false, false, () -> {}, java.time.Clock.systemUTC());
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            other.submit(() -> job.failed(new IllegalStateException("scheduled run")))
                    .get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);
            job.failed(new IllegalStateException("run now"));
            job.record(0L, 1_000L, io.timedjobs.scheduler.ExecutionListener.Outcome.FAILED);
            other.submit(() -> job.record(0L, 1_000L, io.timedjobs.scheduler.ExecutionListener.Outcome.FAILED))
                    .get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            other.shutdownNow();
        }
        assertThat(job.fates())
                .extracting(JobFate::error)
                .containsExactly(
                        "java.lang.IllegalStateException: scheduled run", "java.lang.IllegalStateException: run now");
    }

    /** A failure's summary and stack trace are cut to their stated bounds. */
    @Test
    void shouldBoundErrorAndStackTrace() {
        Exception deep = new Exception("x".repeat(2 * JobFate.ERROR_LENGTH));
        assertThat(JobFates.errorSummary(deep)).hasSize(JobFate.ERROR_LENGTH).endsWith("…");
        assertThat(JobFates.stackTrace(deep)).hasSizeLessThanOrEqualTo(JobFate.STACK_TRACE_LENGTH);
    }
}
