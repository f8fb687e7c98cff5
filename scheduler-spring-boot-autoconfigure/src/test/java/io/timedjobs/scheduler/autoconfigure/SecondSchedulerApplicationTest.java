package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A user's application with a second scheduler of its own for one qualified job: the starter
 * keeps running every other job, with its meters, and both schedulers can be injected by name.
 */
@SpringBootTest(
        classes = SecondSchedulerApplicationTest.ReportApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE)
class SecondSchedulerApplicationTest {

    @Autowired
    private ReportApplication application;

    @Autowired
    private MeterRegistry meterRegistry;

    @Autowired
    @Qualifier("taskScheduler")
    private TaskScheduler defaultScheduler;

    @Autowired
    @Qualifier("reportScheduler")
    private TaskScheduler reportScheduler;

    /** The unqualified job runs on ours, the qualified one on the application's scheduler. */
    @Test
    void shouldKeepOursAsDefaultBesideQualifiedScheduler() throws Exception {
        assertThat(application.bothRan.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();

        assertThat(application.threads.get("cleanup")).startsWith("timed-jobs-");
        assertThat(application.threads.get("report")).startsWith("report-");
        assertThat(defaultScheduler).isInstanceOf(LeaderFollowerTaskScheduler.class);
        assertThat(reportScheduler).isInstanceOf(ThreadPoolTaskScheduler.class);
        assertThat(meterRegistry
                        .find("scheduler.queue.depth")
                        .tag("scheduler", "taskScheduler")
                        .gauge())
                .isNotNull();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class ReportApplication {
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
