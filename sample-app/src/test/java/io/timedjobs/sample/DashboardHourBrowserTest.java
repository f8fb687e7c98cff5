package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.jdbc.history.SkippedFires;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The page's last hour when the hour holds more fates than it reads (10 pages of 500, in write
 * order): a skip recorded long before the runs that followed it is still drawn, as the hour's skips
 * are read apart, in headless Chromium. Skipped where no Chromium is installed.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.jobs.heartbeat-rate=1h",
            "sample.jobs.cleanup-delay=1h",
            "sample.jobs.report-cron=0 0 3 * * *",
            "sample.jobs.warm-up-delay=1h",
            "spring.datasource.url=jdbc:h2:mem:sample-dashboard-hour-test",
            "timed-jobs.cluster.poll-interval=100ms"
        })
@Timeout(180)
class DashboardHourBrowserTest {

    private static final Duration LONG = Duration.ofMillis(
            Math.round(60_000 * Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"))));

    private static final String JOB = "sampleJobs.heartbeat";

    /** More runs than the page reads in one search's pages. */
    private static final int RUNS = 5_100;

    /** True once the timeline has drawn the job's runs. */
    private static final String READY =
            "document.querySelectorAll('.tl-row[data-job=\"" + JOB + "\"] .mark.run').length > 0";

    /** The job's skipped-while-paused marks, and whether its row is marked cut (1), separated by a space. */
    private static final String PROBE = "[document.querySelectorAll('.tl-row[data-job=\"" + JOB
            + "\"] .mark.skip.PAUSED').length,"
            + " document.querySelector('.tl-row[data-job=\"" + JOB
            + "\"]').classList.contains('cut') ? 1 : 0].join(' ')";

    @Autowired
    private Environment environment;

    @Autowired
    private LeaderFollowerTaskScheduler scheduler;

    @Autowired
    private RunHistory history;

    /** A pause recorded 50 minutes ago, then more runs than the page reads, is drawn on the timeline. */
    @Test
    void shouldDrawTheHoursSkipsBeyondTheRunsItReads() throws Exception {
        Chromium chromium = Chromium.find().orElse(null);
        Assumptions.assumeTrue(
                chromium != null,
                "No Chromium on the PATH (Debian: apt-get install chromium): the browser test of /timed-jobs is skipped");
        await().atMost(LONG).until(() -> scheduler.getJobRegistry().find(JOB).isPresent());
        Instant now = Instant.now();
        assertThat(history.recordSkip(
                        SkippedFires.one(JOB, now.minus(Duration.ofMinutes(50)), SkipReason.PAUSED, "elsewhere"), null))
                .isTrue();
        Instant first = now.minus(Duration.ofMinutes(40));
        for (int i = 0; i < RUNS; i++) {
            history.complete(
                    () -> true,
                    new FinishedRun(
                            RunKind.JOB,
                            JOB,
                            null,
                            first.plusMillis(400L * i),
                            "elsewhere",
                            1,
                            RunOutcome.SUCCEEDED,
                            1,
                            null,
                            false,
                            null),
                    true);
        }

        String probe = chromium.probe(url("/timed-jobs"), 1366, 768, READY, PROBE, LONG);
        long[] figures =
                Arrays.stream(probe.split(" ")).mapToLong(Long::parseLong).toArray();
        assertThat(figures).as("probe %s", probe).hasSize(2);
        assertThat(figures[1]).as("the job's row is marked cut").isEqualTo(1);
        assertThat(figures[0]).as("the pause on the timeline").isEqualTo(1);
    }

    private String url(String path) {
        return "http://localhost:" + environment.getRequiredProperty("local.server.port") + path;
    }
}
