package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The page's last hour for a local job whose memory no longer reaches back an hour (it keeps
 * {@value TrackedJob#FATES_KEPT} fates): its row is hatched before the oldest fate kept and says
 * from when its fates are known, in headless Chromium. Skipped where no Chromium is installed.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.jobs.heartbeat-rate=1h",
            "sample.jobs.cleanup-delay=20ms",
            "sample.jobs.report-cron=0 0 3 * * *",
            "sample.jobs.warm-up-delay=1h",
            "spring.datasource.url=jdbc:h2:mem:sample-dashboard-memory-test",
            "timed-jobs.cluster.poll-interval=100ms",
            // one job of this instance only, whose fates this instance keeps in memory
            "timed-jobs.cluster.local-jobs=sampleJobs.cleanup"
        })
@Timeout(180)
class DashboardMemoryBrowserTest {

    private static final Duration LONG = Duration.ofMillis(
            Math.round(60_000 * Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"))));

    private static final String ROW = ".tl-row[data-job=\"sampleJobs.cleanup\"]";

    /** True once the timeline has drawn the local job's runs. */
    private static final String READY = "document.querySelectorAll('" + ROW + " .mark.run').length > 0";

    /** Whether the row is marked cut (1), and whether its summary says from when fates are known (1). */
    private static final String PROBE = "[document.querySelector('" + ROW + "').classList.contains('cut') ? 1 : 0,"
            + " document.querySelector('" + ROW + " .sum').textContent.includes('known from') ? 1 : 0].join(' ')";

    @Autowired
    private Environment environment;

    @Autowired
    private LeaderFollowerTaskScheduler scheduler;

    /** Once the memory let older fates go, the row says from when its fates are known. */
    @Test
    void shouldMarkTheHourBeforeTheOldestFateKeptAsNotKnown() throws Exception {
        Chromium chromium = Chromium.find().orElse(null);
        Assumptions.assumeTrue(
                chromium != null,
                "No Chromium on the PATH (Debian: apt-get install chromium): the browser test of /timed-jobs is skipped");
        await().atMost(LONG)
                .until(() ->
                        scheduler.getJobRegistry().find("sampleJobs.cleanup").isPresent());
        TrackedJob cleanup =
                scheduler.getJobRegistry().find("sampleJobs.cleanup").orElseThrow();
        assertThat(cleanup.isSharedByInstances()).isFalse();
        await().atMost(LONG).until(() -> cleanup.fatesKnownFrom() != null);

        String probe = chromium.probe(url("/timed-jobs"), 1366, 768, READY, PROBE, LONG);
        long[] figures =
                Arrays.stream(probe.split(" ")).mapToLong(Long::parseLong).toArray();
        assertThat(figures).as("probe %s", probe).containsExactly(1L, 1L);
    }

    private String url(String path) {
        return "http://localhost:" + environment.getRequiredProperty("local.server.port") + path;
    }
}
