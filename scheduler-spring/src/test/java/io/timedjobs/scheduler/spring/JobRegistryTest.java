package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronTrigger;

/** The repeating jobs a scheduler tracks: names, schedules, figures per run, pause and run-now. */
class JobRegistryTest {

    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private final ManualTicker ticker = new ManualTicker(0L, ORIGIN);
    private final LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();

    JobRegistryTest() {
        scheduler.setPoolSize(1);
        scheduler.setTicker(ticker);
        scheduler.setThreadNamePrefix("registry-test-");
        scheduler.initialize();
    }

    @AfterEach
    void shutDown() {
        scheduler.shutdown();
    }

    /** A counting task whose name is its toString, as other repeating tasks are named. */
    private static final class Poller implements Runnable {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public void run() {
            runs.incrementAndGet();
        }

        @Override
        public String toString() {
            return "poller";
        }
    }

    private TrackedJob onlyJob() {
        assertThat(scheduler.getJobRegistry().jobs()).hasSize(1);
        return scheduler.getJobRegistry().jobs().get(0);
    }

    private void awaitRuns(TrackedJob job, long runs) {
        await().atMost(TestDelays.LONG).until(() -> job.snapshot().runs() == runs);
    }

    /** A run's lateness, outcome and start are recorded in its job, and the next run is known. */
    @Test
    void shouldRecordEachRunInItsJob() {
        Poller poller = new Poller();
        scheduler.scheduleAtFixedRate(poller, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));
        TrackedJob job = onlyJob();
        assertThat(job.name()).isEqualTo("poller");
        assertThat(job.schedule()).isEqualTo("every 10s");
        assertThat(job.isScheduledMethod()).isFalse();
        assertThat(job.snapshot().nextRun()).isEqualTo(ORIGIN.plusSeconds(10));

        ticker.advance(12, TimeUnit.SECONDS);
        awaitRuns(job, 1);

        JobSnapshot snapshot = job.snapshot();
        assertThat(snapshot.lastOutcome()).isEqualTo(Outcome.SUCCEEDED);
        assertThat(snapshot.lastRun()).isEqualTo(ORIGIN.plusSeconds(12));
        assertThat(snapshot.recentLatenessNanos()).containsExactly(TimeUnit.SECONDS.toNanos(2));
        assertThat(snapshot.p50LatenessNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(snapshot.p99LatenessNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(snapshot.maxLatenessNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(2));
        assertThat(snapshot.nextRun()).isEqualTo(ORIGIN.plusSeconds(20));
        assertThat(snapshot.failures()).isZero();
    }

    /** A run that throws counts as a failure of its job; the job keeps its schedule. */
    @Test
    void shouldCountFailedRuns() {
        scheduler.setErrorHandler(failure -> {});
        scheduler.scheduleWithFixedDelay(
                () -> {
                    throw new IllegalStateException("fails");
                },
                ORIGIN.plusSeconds(1),
                Duration.ofMillis(1500));
        TrackedJob job = onlyJob();
        assertThat(job.schedule()).isEqualTo("1500ms after each run");
        ticker.advance(1, TimeUnit.SECONDS);
        awaitRuns(job, 1);
        assertThat(job.snapshot().failures()).isEqualTo(1);
        assertThat(job.snapshot().lastOutcome()).isEqualTo(Outcome.FAILED);
    }

    /** A paused job skips its runs without counting them, and runs again once resumed. */
    @Test
    void shouldSkipRunsWhilePaused() {
        Poller poller = new Poller();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(poller, ORIGIN.plusSeconds(1), Duration.ofSeconds(1));
        TrackedJob job = onlyJob();
        job.pause();
        ticker.advance(1, TimeUnit.SECONDS);
        // the skipped run is no execution (the engine does not count it) but keeps the schedule
        await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.MILLISECONDS) == 1_000);
        assertThat(scheduler.getScheduledExecutor().getCompletedTaskCount()).isZero();
        assertThat(poller.runs).hasValue(0);
        assertThat(job.snapshot().runs()).isZero();
        assertThat(job.snapshot().paused()).isTrue();

        job.resume();
        ticker.advance(1, TimeUnit.SECONDS);
        awaitRuns(job, 1);
        assertThat(poller.runs).hasValue(1);
    }

    /** Run-now runs the work once beside its schedule, which stays as it was. */
    @Test
    void shouldRunJobNowBesideItsSchedule() {
        Poller poller = new Poller();
        scheduler.schedule(poller, new CronTrigger("0 0 * * * *", java.time.ZoneOffset.UTC));
        TrackedJob job = onlyJob();
        assertThat(job.schedule()).isEqualTo("cron 0 0 * * * *");
        scheduler.runNow(job);
        await().atMost(TestDelays.LONG).until(() -> poller.runs.get() == 1);
        assertThat(job.snapshot().nextRun()).isEqualTo(ORIGIN.plus(Duration.ofHours(1)));
        assertThat(scheduler.getJobRegistry().jobs())
                .as("a run now is no job of its own")
                .hasSize(1);
    }

    /** One-shot tasks are no jobs; a cancelled job leaves the registry. */
    @Test
    void shouldListOnlyRepeatingJobsStillScheduled() {
        scheduler.schedule(() -> {}, ORIGIN.plusSeconds(60));
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(new Poller(), Duration.ofMinutes(1));
        assertThat(scheduler.getJobRegistry().find("poller")).isPresent();
        future.cancel(false);
        assertThat(scheduler.getJobRegistry().jobs()).isEmpty();
        assertThat(scheduler.getJobRegistry().find("poller")).isEmpty();
    }
}
