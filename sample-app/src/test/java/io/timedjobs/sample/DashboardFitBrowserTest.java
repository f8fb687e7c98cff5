package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.spring.JobFate;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The page of a fresh sample on a 1,366 x 768 screen, in headless Chromium driven through its
 * DevTools protocol: nothing scrolls sideways, every job's recent lateness is drawn, and the last
 * hour's timeline shows runs and, for a local and a clustered job paused through the endpoint, their
 * skipped fires. A screenshot is saved as {@code target/timed-jobs-1366.png}. Skipped where no
 * Chromium is installed.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.jobs.heartbeat-rate=200ms",
            "sample.jobs.cleanup-delay=200ms",
            "sample.jobs.report-cron=* * * * * *",
            "sample.jobs.warm-up-delay=200ms",
            "spring.datasource.url=jdbc:h2:mem:sample-dashboard-fit-test",
            "timed-jobs.cluster.poll-interval=100ms",
            // one job of this instance only, whose fates this instance keeps in memory
            "timed-jobs.cluster.local-jobs=sampleJobs.cleanup"
        })
@Timeout(180)
class DashboardFitBrowserTest {

    private static final Duration LONG = Duration.ofMillis(
            Math.round(60_000 * Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"))));

    private static final int WIDTH = 1366;
    private static final int HEIGHT = 768;

    /** True once the timeline has drawn at least one run and one skip. */
    private static final String READY = "document.querySelectorAll('#timeline .mark.run').length > 0"
            + " && document.querySelector('.tl-row[data-job=\"sampleJobs.cleanup\"] .mark.skip') !== null"
            + " && document.querySelector('.tl-row[data-job=\"sampleJobs.heartbeat\"] .mark.skip') !== null";

    /**
     * Widths, marks, job rows whose recent lateness has no point drawn, history searches for every
     * clustered job at once, searches naming a clustered job, and whether a skip opens with its
     * reason once clicked (1), separated by spaces.
     */
    private static final String PROBE = "[document.documentElement.scrollWidth, document.documentElement.clientWidth,"
            + " document.querySelectorAll('#timeline .mark.run').length,"
            + " document.querySelectorAll('#timeline .mark.skip.PAUSED').length,"
            + " document.querySelectorAll('#jobs tr[data-job]').length,"
            + " Array.from(document.querySelectorAll('#jobs tr[data-job]'))"
            + ".filter(row => !row.cells[5].querySelector('circle')).length,"
            + " performance.getEntriesByType('resource').filter(e => e.name.includes('/history?')"
            + " && !e.name.includes('job=')).length,"
            + " performance.getEntriesByType('resource').filter(e => e.name.includes('/history?')"
            + " && e.name.includes('job=') && !e.name.includes('job=sampleJobs.cleanup')).length,"
            + " (document.querySelector('#timeline .mark.skip').click(),"
            + " !document.getElementById('run-panel').hidden"
            + " && document.getElementById('run-facts').textContent.includes('skipped: paused') ? 1 : 0)].join(' ')";

    @Autowired
    private Environment environment;

    @Autowired
    private LeaderFollowerTaskScheduler scheduler;

    private String pause(String job) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url("/actuator/timedjobs/" + job)))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"pause\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private String get(String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(url(path))).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private String url(String path) {
        return "http://localhost:" + environment.getRequiredProperty("local.server.port") + path;
    }

    /**
     * At 1,366 px nothing scrolls sideways, each job's lateness shows, the timeline has runs and
     * skips from one search for all clustered jobs, and a skip opens with its reason.
     */
    @Test
    void shouldFitA1366PixelScreenWithRunsAndSkipsOnTheTimeline() throws Exception {
        Chromium chromium = Chromium.find().orElse(null);
        Assumptions.assumeTrue(
                chromium != null,
                "No Chromium on the PATH (Debian: apt-get install chromium): the browser test of /timed-jobs is skipped");
        await().atMost(LONG)
                .until(() -> scheduler.getJobRegistry().jobs().size() == 4
                        && scheduler.getJobRegistry().jobs().stream()
                                .allMatch(job -> job.snapshot().runs() > 0));
        TrackedJob cleanup =
                scheduler.getJobRegistry().find("sampleJobs.cleanup").orElseThrow();
        assertThat(cleanup.isSharedByInstances()).isFalse();

        assertThat(pause("sampleJobs.cleanup")).contains("\"done\":true");
        assertThat(pause("sampleJobs.heartbeat")).contains("\"done\":true");
        await().atMost(LONG)
                .until(() -> cleanup.fates().stream().anyMatch(fate -> fate.skipReason() == JobFate.SkipReason.PAUSED));
        // the clustered job's skips are in the run history, as the endpoint's search finds them
        await().atMost(LONG)
                .until(() -> get("/actuator/timedjobs/history?job=sampleJobs.heartbeat&reason=PAUSED")
                        .contains("\"skipReason\":\"PAUSED\""));

        String probe = chromium.probe(url("/timed-jobs"), WIDTH, HEIGHT, READY, PROBE, LONG);
        long[] figures =
                Arrays.stream(probe.split(" ")).mapToLong(Long::parseLong).toArray();
        assertThat(figures).as("probe %s", probe).hasSize(9);
        assertThat(figures[1]).as("viewport width").isEqualTo(WIDTH);
        assertThat(figures[0])
                .as("scroll width beside viewport width %s", figures[1])
                .isLessThanOrEqualTo(figures[1]);
        assertThat(figures[2]).as("runs on the timeline").isPositive();
        assertThat(figures[3]).as("fires skipped while paused on the timeline").isPositive();
        assertThat(figures[4]).as("job rows").isEqualTo(4);
        assertThat(figures[5]).as("job rows whose recent lateness is empty").isZero();
        assertThat(figures[6])
                .as("history searches for every clustered job at once")
                .isPositive();
        assertThat(figures[7])
                .as("history searches naming a clustered job (one search covers them all)")
                .isZero();
        assertThat(figures[8]).as("a skip clicked opens with its reason").isEqualTo(1);

        Path png = Path.of("target", "timed-jobs-1366.png");
        Files.deleteIfExists(png);
        chromium.screenshot(url("/timed-jobs"), png, WIDTH, HEIGHT, LONG);
        assertThat(png).isNotEmptyFile();
    }
}
