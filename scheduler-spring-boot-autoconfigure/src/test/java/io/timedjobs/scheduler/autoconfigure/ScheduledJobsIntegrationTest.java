package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.scheduling.ScheduledTasksEndpoint;
import org.springframework.boot.actuate.scheduling.ScheduledTasksEndpoint.ScheduledTasksDescriptor;
import org.springframework.boot.actuate.scheduling.ScheduledTasksEndpoint.TaskDescriptor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.config.ScheduledTaskHolder;

/** A Spring Boot application with {@code @Scheduled} methods of every kind, on the starter. */
@SpringBootTest(
        classes = ScheduledJobsIntegrationTest.JobsApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"timed-jobs.thread-name-prefix=it-jobs-", "timed-jobs.shutdown.await-termination-period=5s"})
class ScheduledJobsIntegrationTest {

    @Autowired
    private Jobs jobs;

    @Autowired
    private ApplicationContext context;

    @Autowired
    private MeterRegistry meterRegistry;

    /** fixedRate, fixedDelay, cron, initialDelay and scheduler = "..." jobs all run, on our workers. */
    @Test
    void shouldRunEveryKindOfScheduledMethodOnOurThreads() throws Exception {
        assertThat(jobs.allRan.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .as("every job ran: %s", jobs.threads.keySet())
                .isTrue();

        assertThat(jobs.threads).containsOnlyKeys(Jobs.KINDS);
        assertThat(jobs.threads.values())
                .allSatisfy(thread -> assertThat(thread).startsWith("it-jobs-"));
        assertThat(context.getBean(TaskScheduler.class)).isInstanceOf(LeaderFollowerTaskScheduler.class);
    }

    /** The actuator scheduledtasks endpoint lists the jobs, each with a next execution time. */
    @Test
    void shouldListJobsWithNextExecutionInScheduledTasksEndpoint() throws Exception {
        assertThat(jobs.allRan.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
        Collection<ScheduledTaskHolder> holders =
                context.getBeansOfType(ScheduledTaskHolder.class).values();
        ScheduledTasksEndpoint endpoint = context.getBeanProvider(ScheduledTasksEndpoint.class)
                .getIfAvailable(() -> new ScheduledTasksEndpoint(holders));

        ScheduledTasksDescriptor tasks = endpoint.scheduledTasks();

        assertThat(tasks.getCron()).hasSize(1);
        assertThat(tasks.getFixedRate()).hasSize(2);
        assertThat(tasks.getFixedDelay()).hasSize(2);
        // the hourly and every-second jobs are waiting almost all the time; allow for the instant
        // one of them runs
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            ScheduledTasksDescriptor now = endpoint.scheduledTasks();
            assertThat(nextExecutionOf(now.getCron(), "cron")).isTrue();
            assertThat(nextExecutionOf(now.getFixedDelay(), "initialDelay")).isTrue();
        });
    }

    private static boolean nextExecutionOf(List<TaskDescriptor> tasks, String method) {
        return tasks.stream()
                .filter(task -> task.getRunnable().getTarget().endsWith("." + method))
                .anyMatch(task -> task.getNextExecution() != null
                        && task.getNextExecution().getTime() != null);
    }

    /** Spring's tasks.scheduled.execution observation is recorded for the jobs. */
    @Test
    void shouldRecordScheduledTaskObservation() throws Exception {
        assertThat(jobs.allRan.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();

        await().atMost(TestDelays.LONG)
                .untilAsserted(() -> assertThat(meterRegistry
                                .find("tasks.scheduled.execution")
                                .tag("code.function", "fixedRate")
                                .timers())
                        .isNotEmpty()
                        .allSatisfy(timer -> assertThat(timer.count()).isPositive()));
        Collection<Timer> all = meterRegistry.find("tasks.scheduled.execution").timers();
        assertThat(all).isNotEmpty();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class JobsApplication {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {
        static final List<String> KINDS = List.of("fixedRate", "fixedDelay", "cron", "initialDelay", "named");

        final Map<String, String> threads = new ConcurrentHashMap<>();
        final CountDownLatch allRan = new CountDownLatch(KINDS.size());

        private void ran(String kind) {
            if (threads.putIfAbsent(kind, Thread.currentThread().getName()) == null) {
                allRan.countDown();
            }
        }

        @Scheduled(fixedRate = 100)
        void fixedRate() {
            ran("fixedRate");
        }

        @Scheduled(fixedDelay = 100)
        void fixedDelay() {
            ran("fixedDelay");
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            ran("cron");
        }

        @Scheduled(initialDelay = 200, fixedDelay = 3_600_000)
        void initialDelay() {
            ran("initialDelay");
        }

        @Scheduled(fixedRate = 100, scheduler = "taskScheduler")
        void named() {
            ran("named");
        }
    }
}
