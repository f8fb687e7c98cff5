package io.timedjobs.scheduler.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A Spring Boot 3.5 web application with the starter's jar as built for the main line: jobs run on
 * the starter's scheduler beside a second one, and the actuator shows the timedJobs component.
 */
@SpringBootTest(
        classes = Boot35ApplicationTest.JobsApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health,info,timedjobs",
            "management.endpoint.health.show-details=always"
        })
class Boot35ApplicationTest {

    @Autowired
    private JobsApplication jobs;

    @Autowired
    private ApplicationContext context;

    @Autowired
    private Environment environment;

    /** The application really runs on Spring Boot 3.5. */
    @Test
    void shouldRunOnSpringBoot35() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
    }

    /** Unqualified jobs run on the starter's scheduler, qualified ones on the application's. */
    @Test
    void shouldRunJobsOnBothSchedulers() throws Exception {
        assertThat(jobs.bothRan.await(20, TimeUnit.SECONDS)).isTrue();

        assertThat(context.getBean("taskScheduler")).isInstanceOf(LeaderFollowerTaskScheduler.class);
        assertThat(jobs.threads.get("cleanup")).startsWith("timed-jobs-");
        assertThat(jobs.threads.get("report")).startsWith("report-");
    }

    /** /actuator/health shows timedJobs, found through Boot 3.5's health types. */
    @Test
    void shouldShowTimedJobsInHealth() throws Exception {
        String port = environment.getRequiredProperty("local.server.port");
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/health"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"timedJobs\"").contains("\"queueDepth\"");
    }

    /**
     * Boot 3.5 maps the history search's optional parameters, answers a bad one with 400 and a read
     * the endpoint does not have with 404.
     */
    @Test
    void shouldSearchHistoryOnBoot35() throws Exception {
        assertThat(jobs.bothRan.await(20, TimeUnit.SECONDS)).isTrue();
        // The run's fate is recorded once its body returned: wait for it.
        await().atMost(Duration.ofSeconds(20))
                .until(() -> get("/actuator/timedjobs/history?outcome=SUCCEEDED&limit=5")
                        .body()
                        .contains("\"outcome\":\"SUCCEEDED\""));
        HttpResponse<String> page = get("/actuator/timedjobs/history?outcome=SUCCEEDED&limit=5");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("\"source\":\"LOCAL\"").contains(".cleanup\"");
        HttpResponse<String> refused = get("/actuator/timedjobs/history?limit=0");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("limit must be between 1 and 500");
        HttpResponse<String> unknown = get("/actuator/timedjobs/elsewhere");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("Unknown read 'elsewhere'");
        assertThat(get("/actuator/timedjobs").body())
                .contains("\"name\":\"boot35ApplicationTest.JobsApplication.cleanup\"");
    }

    private HttpResponse<String> get(String path) throws Exception {
        String port = environment.getRequiredProperty("local.server.port");
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class JobsApplication {
        final Map<String, String> threads = new ConcurrentHashMap<>();
        final CountDownLatch bothRan = new CountDownLatch(2);

        @Bean
        ThreadPoolTaskScheduler reportScheduler() {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setThreadNamePrefix("report-");
            return scheduler;
        }

        @Scheduled(fixedDelay = 3_600_000)
        void cleanup() {
            record("cleanup");
        }

        @Scheduled(fixedDelay = 3_600_000, scheduler = "reportScheduler")
        void report() {
            record("report");
        }

        private void record(String job) {
            if (threads.putIfAbsent(job, Thread.currentThread().getName()) == null) {
                bothRan.countDown();
            }
        }
    }
}
