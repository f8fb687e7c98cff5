package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.MisfirePolicy;
import io.timedjobs.scheduler.spring.JobFate.Outcome;
import io.timedjobs.scheduler.spring.JobFate.SkipReason;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.CronTrigger;

/**
 * The fires a local job's run outlasts keep a fate: a cron job's passed-over fires and a fixed-rate
 * job's dropped executions are skipped as STILL_RUNNING, at their nominal instants, after the run.
 */
class PassedOverFiresTest {

    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

    private final ManualTicker ticker = new ManualTicker(0L, ORIGIN);
    private final LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();
    private final CountDownLatch running = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicInteger runs = new AtomicInteger();

    private void start(MisfirePolicy policy) {
        scheduler.setPoolSize(1);
        scheduler.setTicker(ticker);
        scheduler.setMisfirePolicy(policy);
        scheduler.setThreadNamePrefix("passed-over-");
        scheduler.initialize();
    }

    @AfterEach
    void shutDown() {
        release.countDown();
        scheduler.shutdown();
    }

    /** The first run blocks until released; later runs return at once. */
    private void work() {
        if (runs.incrementAndGet() == 1) {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Lets the first run start after {@code startAfter}, then ends it {@code runFor} later. */
    private TrackedJob outlast(int startAfter, int runFor) throws InterruptedException {
        TrackedJob job = scheduler.getJobRegistry().jobs().get(0);
        ticker.advance(startAfter, TimeUnit.SECONDS);
        assertThat(running.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        ticker.advance(runFor, TimeUnit.SECONDS);
        release.countDown();
        await().atMost(TestDelays.LONG).until(() -> !job.fates().isEmpty());
        return job;
    }

    /** A cron job's fires that came due during its run are one STILL_RUNNING range after the run. */
    @Test
    void shouldKeepTheCronFiresARunOutlastedAsStillRunning() throws Exception {
        start(MisfirePolicy.CATCH_UP);
        scheduler.schedule(this::work, new CronTrigger("*/10 * * * * *", ZoneOffset.UTC));

        TrackedJob job = outlast(10, 35);

        await().atMost(TestDelays.LONG).until(() -> job.fates().size() == 2);
        assertThat(job.fates())
                .extracting(JobFate::outcome, JobFate::skipReason, JobFate::fireAt, JobFate::fireUntil, JobFate::fires)
                .containsExactly(
                        tuple(
                                Outcome.SKIPPED,
                                SkipReason.STILL_RUNNING,
                                ORIGIN.plusSeconds(20),
                                ORIGIN.plusSeconds(40),
                                3L),
                        tuple(Outcome.SUCCEEDED, null, ORIGIN.plusSeconds(10), ORIGIN.plusSeconds(10), 1L));
        assertThat(job.snapshot().nextRun()).isEqualTo(ORIGIN.plusSeconds(50));
    }

    /**
     * A fixed-rate job under the misfire policy SKIP drops the executions its run outlasted: each
     * keeps a STILL_RUNNING fate at its nominal instant.
     */
    @Test
    void shouldKeepTheFixedRateExecutionsSkipDroppedAsStillRunning() throws Exception {
        start(MisfirePolicy.SKIP);
        scheduler.scheduleAtFixedRate(this::work, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));

        TrackedJob job = outlast(12, 25);

        await().atMost(TestDelays.LONG).until(() -> job.fates().size() == 2);
        assertThat(job.fates())
                .extracting(JobFate::outcome, JobFate::skipReason, JobFate::fireAt, JobFate::fireUntil, JobFate::fires)
                .containsExactly(
                        tuple(
                                Outcome.SKIPPED,
                                SkipReason.STILL_RUNNING,
                                ORIGIN.plusSeconds(20),
                                ORIGIN.plusSeconds(30),
                                2L),
                        tuple(Outcome.SUCCEEDED, null, ORIGIN.plusSeconds(10), ORIGIN.plusSeconds(10), 1L));
        ticker.advance(3, TimeUnit.SECONDS);
        await().atMost(TestDelays.LONG).until(() -> job.fates().size() == 3);
        assertThat(job.fates().get(0).fireAt()).isEqualTo(ORIGIN.plusSeconds(40));
    }

    /** A fixed-rate job that catches up runs every fire late, so none is skipped. */
    @Test
    void shouldSkipNoFireOfAFixedRateJobThatCatchesUp() throws Exception {
        start(MisfirePolicy.CATCH_UP);
        scheduler.scheduleAtFixedRate(this::work, ORIGIN.plusSeconds(10), Duration.ofSeconds(10));

        TrackedJob job = outlast(12, 25);

        await().atMost(TestDelays.LONG).until(() -> job.fates().size() == 3);
        assertThat(job.fates())
                .extracting(JobFate::outcome, JobFate::fireAt)
                .containsExactly(
                        tuple(Outcome.SUCCEEDED, ORIGIN.plusSeconds(30)),
                        tuple(Outcome.SUCCEEDED, ORIGIN.plusSeconds(20)),
                        tuple(Outcome.SUCCEEDED, ORIGIN.plusSeconds(10)));
    }

    /** Once the ring lets old fates go, the job says from which fire its fates tell every fire. */
    @Test
    void shouldSayFromWhenTheKeptFatesAreComplete() {
        JobFates fates = new JobFates(3);
        for (int i = 0; i < 3; i++) {
            fates.ran(ORIGIN.plusSeconds(i), ORIGIN.plusSeconds(i), 0L, null);
        }
        assertThat(fates.knownFrom()).as("every fate kept").isNull();

        fates.ran(ORIGIN.plusSeconds(3), ORIGIN.plusSeconds(3), 0L, null);
        fates.skipped(ORIGIN.plusSeconds(4), ORIGIN.plusSeconds(9), 6, SkipReason.STILL_RUNNING);

        assertThat(fates.knownFrom()).isEqualTo(ORIGIN.plusSeconds(2));
    }
}
