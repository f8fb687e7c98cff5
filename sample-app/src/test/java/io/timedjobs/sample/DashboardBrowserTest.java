package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/**
 * The page at /timed-jobs of the running sample, in a real browser: headless Chromium loads it,
 * its scripts fetch the data and draw the jobs, and their run counts move from one load to the
 * next. A screenshot is saved as {@code target/timed-jobs.png}. Skipped where no Chromium is
 * installed.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.jobs.heartbeat-rate=200ms",
            "sample.jobs.cleanup-delay=300ms",
            "sample.jobs.report-cron=* * * * * *",
            "sample.jobs.warm-up-delay=200ms",
            "spring.datasource.url=jdbc:h2:mem:sample-dashboard-test",
            "timed-jobs.cluster.poll-interval=100ms"
        })
@Timeout(180)
class DashboardBrowserTest {

    private static final Duration LONG = Duration.ofMillis(
            Math.round(60_000 * Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"))));

    private static final Pattern RUNS =
            Pattern.compile("<tr data-job=\"([^\"]+)\">.*?<td class=\"num runs\">(\\d+)", Pattern.DOTALL);

    @Autowired
    private Environment environment;

    @Autowired
    private LeaderFollowerTaskScheduler scheduler;

    @Autowired
    private ClusteredJobs clusteredJobs;

    @Autowired
    private ClusterInstance instance;

    @Autowired
    private RunHistory history;

    /** A job's row in the run history: its name and its timeline of runs. */
    private static final Pattern TIMELINE =
            Pattern.compile("<tr data-history-job=\"([^\"]+)\">.*?<div class=\"timeline\">(.*?)</div>", Pattern.DOTALL);

    /** A job row's cluster cells: fires in the cluster with the instance of the last fire, skips here. */
    private static final Pattern CLUSTER_CELLS = Pattern.compile(
            "<tr data-job=\"([^\"]+)\">.*?<td class=\"num cluster-col fires\"[^>]*>(\\d+)"
                    + "<div class=\"ran-by\">last ran on ([^<]*)</div>(?:<div class=\"ran-by not-run\">[^<]*</div>)?</td>"
                    + "<td class=\"cluster-col skipped\">([^<]*)</td>",
            Pattern.DOTALL);

    private String url() {
        return "http://localhost:" + environment.getRequiredProperty("local.server.port") + "/timed-jobs";
    }

    /** The sample's four jobs appear on the page, their counts move between two loads, and a screenshot is saved. */
    @Test
    void shouldShowJobsWithMovingCounts() throws Exception {
        Chromium chromium = Chromium.find().orElse(null);
        Assumptions.assumeTrue(
                chromium != null,
                "No Chromium on the PATH (Debian: apt-get install chromium): the browser test of /timed-jobs is skipped");
        await().atMost(LONG).until(() -> scheduler.getJobRegistry().jobs().size() == 4);

        Map<String, Long> first = runsOnPage(chromium.dumpDom(url(), LONG));
        assertThat(first)
                .containsOnlyKeys(
                        "sampleJobs.heartbeat", "sampleJobs.cleanup", "sampleJobs.report", "sampleJobs.warmUp");

        long heartbeatsSeen = first.get("sampleJobs.heartbeat");
        TrackedJob heartbeat =
                scheduler.getJobRegistry().find("sampleJobs.heartbeat").orElseThrow();
        await().atMost(LONG).until(() -> heartbeat.snapshot().runs() > heartbeatsSeen);

        // The page's data of the cluster is kept a second for every tab: a load may draw the read before.
        await().atMost(LONG)
                .untilAsserted(() -> assertThat(
                                runsOnPage(chromium.dumpDom(url(), LONG)).get("sampleJobs.heartbeat"))
                        .isGreaterThan(heartbeatsSeen));

        Path png = Path.of("target", "timed-jobs.png");
        Files.deleteIfExists(png);
        chromium.screenshot(url(), png, LONG);
        assertThat(png).isNotEmptyFile();
    }

    /** Returns each job row's run count, as the page drew it. */
    private static Map<String, Long> runsOnPage(String dom) {
        Map<String, Long> runs = new LinkedHashMap<>();
        Matcher matcher = RUNS.matcher(dom);
        while (matcher.find()) {
            runs.put(matcher.group(1), Long.parseLong(matcher.group(2)));
        }
        assertThat(runs).as("job rows in the page:%n%s", dom).isNotEmpty();
        return runs;
    }

    /**
     * The sample's jobs are clustered (it has a database): the page shows the cluster's columns, and
     * for the heartbeat the fires recorded and this instance as the one that ran the last fire.
     */
    @Test
    void shouldShowTheClusterColumnsOfClusteredJobs() throws Exception {
        Chromium chromium = Chromium.find().orElse(null);
        Assumptions.assumeTrue(
                chromium != null,
                "No Chromium on the PATH (Debian: apt-get install chromium): the browser test of /timed-jobs is skipped");
        await().atMost(LONG)
                .until(() -> clusteredJobs.stats().job("sampleJobs.heartbeat").won() >= 2);

        String dom = chromium.dumpDom(url(), LONG);
        assertThat(dom)
                .contains("<table id=\"jobs-table\" class=\"\">")
                .contains(">fires in cluster</th>")
                .contains(">skipped here</th>");
        Map<String, String[]> cells = new LinkedHashMap<>();
        Matcher matcher = CLUSTER_CELLS.matcher(dom);
        while (matcher.find()) {
            cells.put(matcher.group(1), new String[] {matcher.group(2), matcher.group(3), matcher.group(4)});
        }
        assertThat(cells).as("cluster cells in the page:%n%s", dom).containsKey("sampleJobs.heartbeat");
        String[] heartbeat = cells.get("sampleJobs.heartbeat");
        assertThat(Long.parseLong(heartbeat[0])).isGreaterThanOrEqualTo(2);
        assertThat(heartbeat[1]).isEqualTo(instance.name() + " (this one)");
        assertThat(heartbeat[2]).isNotBlank();
    }

    /**
     * The run history: each clustered job has a timeline of its latest runs, the heartbeat's naming
     * this instance as the one that ran them, and the last failures have their table.
     */
    @Test
    void shouldShowTheRunHistory() throws Exception {
        Chromium chromium = Chromium.find().orElse(null);
        Assumptions.assumeTrue(
                chromium != null,
                "No Chromium on the PATH (Debian: apt-get install chromium): the browser test of /timed-jobs is skipped");
        await().atMost(LONG)
                .until(() -> history.find(RunHistoryQuery.all().job("sampleJobs.heartbeat"))
                                .size()
                        >= 2);

        String dom = chromium.dumpDom(url(), LONG);
        assertThat(dom)
                .contains("<section id=\"history-section\">")
                .contains("<h2>Run history</h2>")
                .contains(">last failures</th>");
        Map<String, String> timelines = new LinkedHashMap<>();
        Matcher matcher = TIMELINE.matcher(dom);
        while (matcher.find()) {
            timelines.put(matcher.group(1), matcher.group(2));
        }
        assertThat(timelines).as("timelines in the page:%n%s", dom).containsKey("sampleJobs.heartbeat");
        assertThat(timelines.get("sampleJobs.heartbeat"))
                .contains("class=\"run SUCCEEDED\"")
                .contains(instance.name() + " (this one)</span>");
    }
}
