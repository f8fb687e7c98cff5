package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;

/** Every metric the Grafana dashboard in grafana/timed-jobs.json queries is in the sample's /actuator/prometheus. */
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
class GrafanaDashboardTest {

    private static final Duration LONG = Duration.ofMillis(
            Math.round(20_000 * Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"))));

    private static final Pattern METRIC = Pattern.compile("\\b((?:scheduler|executor)_[a-z_]+)\\b");

    @Autowired
    private Environment environment;

    private String scrape() throws Exception {
        URI uri = URI.create(
                "http://localhost:" + environment.getRequiredProperty("local.server.port") + "/actuator/prometheus");
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    /** Each queried metric has at least one sample; the per-job panels find the job tag. */
    @Test
    void shouldFindEveryQueriedMetric() throws Exception {
        String dashboard = Files.readString(Path.of("grafana", "timed-jobs.json"));
        Set<String> queried = new TreeSet<>();
        Matcher matcher = METRIC.matcher(dashboard);
        while (matcher.find()) {
            queried.add(matcher.group(1));
        }
        assertThat(queried)
                .contains(
                        "scheduler_queue_depth_tasks",
                        "scheduler_lateness_seconds",
                        "scheduler_task_lateness_seconds_bucket",
                        "scheduler_cluster_fires_won_total",
                        "scheduler_cluster_durable_tasks");

        await().atMost(LONG).untilAsserted(() -> {
            String scrape = scrape();
            for (String metric : queried) {
                assertThat(scrape).as(metric).containsPattern("(?m)^" + metric + "[{ ]");
            }
            assertThat(scrape)
                    .containsPattern("(?m)^scheduler_task_lateness_seconds_bucket\\{.*job=\"sampleJobs.heartbeat\"");
        });
    }
}
