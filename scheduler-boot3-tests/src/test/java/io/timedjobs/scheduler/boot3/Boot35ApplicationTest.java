package io.timedjobs.scheduler.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
            "management.endpoints.web.exposure.include=health,info",
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
