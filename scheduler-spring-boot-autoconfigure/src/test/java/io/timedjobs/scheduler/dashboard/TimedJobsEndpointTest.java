package io.timedjobs.scheduler.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.timedjobs.scheduler.autoconfigure.SchedulerAutoConfiguration;
import io.timedjobs.scheduler.autoconfigure.SchedulerMetricsAutoConfiguration;
import io.timedjobs.scheduler.autoconfigure.TimedJobsDashboardAutoConfiguration;
import io.timedjobs.scheduler.dashboard.TimedJobsView.JobView;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The timedjobs endpoint over a context with @Scheduled jobs, and the page's switch. */
class TimedJobsEndpointTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchedulerAutoConfiguration.class,
                    SchedulerMetricsAutoConfiguration.class,
                    TimedJobsDashboardAutoConfiguration.class))
            .withUserConfiguration(Jobs.class)
            .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("timed-jobs.shutdown.execute-existing-delayed-tasks=false");

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Jobs {
        @Bean
        Reports reports() {
            return new Reports();
        }
    }

    static class Reports {
        final AtomicInteger sent = new AtomicInteger();

        @Scheduled(fixedRate = 3_600_000)
        void send() {
            sent.incrementAndGet();
        }

        @Scheduled(cron = "0 0 3 * * *", zone = "UTC")
        @Scheduled(cron = "0 0 15 * * *", zone = "UTC")
        void archive() {}
    }

    /** Every @Scheduled method is listed by bean and method, with its schedule and next run. */
    @Test
    void shouldListScheduledMethodsByBeanAndMethod() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            await().atMost(TestDelays.LONG)
                    .until(() -> context.getBean(Reports.class).sent.get() == 1);
            TimedJobsView view = endpoint.timedJobs();
            assertThat(view.jobs())
                    .extracting(JobView::name, JobView::trigger, JobView::clustered)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple("reports.send", "every 1h", false),
                            org.assertj.core.groups.Tuple.tuple("reports.archive#0", "cron 0 0 3 * * *", false),
                            org.assertj.core.groups.Tuple.tuple("reports.archive#1", "cron 0 0 15 * * *", false));
            JobView send = job(view, "reports.send");
            assertThat(Instant.parse(send.nextRun())).isAfter(Instant.now().plusSeconds(3000));
            await().atMost(TestDelays.LONG)
                    .until(() -> job(endpoint.timedJobs(), "reports.send").runs() == 1);
            send = job(endpoint.timedJobs(), "reports.send");
            assertThat(send.lastOutcome()).isEqualTo("SUCCESS");
            assertThat(send.lateness().recentMillis()).hasSize(1);
            assertThat(view.scheduler().name()).isEqualTo("taskScheduler");
            assertThat(view.scheduler().status()).isEqualTo("UP");
            assertThat(view.scheduler().queueDepth()).isEqualTo(3);
            assertThat(view.cluster()).as("no scheduler-jdbc in this context").isNull();
        });
    }

    /** Run-now runs the method once; pause and resume show in the view. */
    @Test
    void shouldRunPauseAndResumeJobs() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            Reports reports = context.getBean(Reports.class);
            await().atMost(TestDelays.LONG).until(() -> reports.sent.get() == 1);

            ActionResult run = endpoint.job("reports.send", "run");
            assertThat(run.done()).isTrue();
            await().atMost(TestDelays.LONG).until(() -> reports.sent.get() == 2);

            assertThat(endpoint.job("reports.send", "pause").done()).isTrue();
            assertThat(job(endpoint.timedJobs(), "reports.send").paused()).isTrue();
            assertThat(endpoint.job("reports.send", "resume").done()).isTrue();
            assertThat(job(endpoint.timedJobs(), "reports.send").paused()).isFalse();
        });
    }

    /** A read refused for a reason without a message still answers 400 with a body that says so. */
    @Test
    void shouldRefuseWithoutAMessageAs400() {
        var refused = TimedJobsEndpoint.refusal(null);
        assertThat(refused.getStatus()).isEqualTo(400);
        assertThat(refused.getBody()).isEqualTo(java.util.Map.of("error", "Bad request (no reason given)"));
    }

    /** Every write whose target does not exist is refused with a message that says so. */
    @Test
    void shouldRefuseMissingTargetsWithClearMessage() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            for (String action : new String[] {"run", "pause", "resume"}) {
                ActionResult refused = endpoint.job("reports.nothing", action);
                assertThat(refused.done()).isFalse();
                assertThat(refused.message())
                        .contains("No repeating job named 'reports.nothing'")
                        .contains("reports.send");
            }
            assertThat(endpoint.job("reports.send", "explode").message()).contains("Unknown action 'explode'");
            assertThat(endpoint.durableTask("mail", "42", "retry").message()).contains("scheduler-jdbc");
            assertThat(endpoint.cancel("mail", "42").done()).isFalse();
        });
    }

    /** Lateness of a @Scheduled method is tagged with its job; one-off tasks get no job value. */
    @Test
    void shouldTagLatenessWithJob() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
            AtomicInteger oneOff = new AtomicInteger();
            scheduler.schedule(oneOff::incrementAndGet, Instant.now());
            await().atMost(TestDelays.LONG)
                    .until(() -> registry.find("scheduler.task.lateness")
                                            .tags("scheduler", "taskScheduler", "job", "reports.send")
                                            .timer()
                                    != null
                            && registry.find("scheduler.task.lateness")
                                            .tags("job", "")
                                            .timer()
                                            .count()
                                    == 1);
            assertThat(registry.get("scheduler.task.lateness")
                            .tags("job", "reports.send")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.find("scheduler.task.lateness").timers())
                    .as("one timer per method that ran, and one for the rest")
                    .hasSize(2);
        });
    }

    /** Prometheus takes the timers of jobs and of one-off tasks side by side. */
    @Test
    void shouldScrapeJobTimersInPrometheus() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class,
                        SchedulerMetricsAutoConfiguration.class,
                        TimedJobsDashboardAutoConfiguration.class))
                .withUserConfiguration(Jobs.class)
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
                .withPropertyValues("timed-jobs.shutdown.execute-existing-delayed-tasks=false")
                .run(context -> {
                    PrometheusMeterRegistry prometheus = context.getBean(PrometheusMeterRegistry.class);
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    AtomicInteger oneOff = new AtomicInteger();
                    scheduler.schedule(oneOff::incrementAndGet, Instant.now());
                    await().atMost(TestDelays.LONG).until(() -> oneOff.get() == 1);
                    await().atMost(TestDelays.LONG)
                            .untilAsserted(() -> assertThat(prometheus
                                            .scrape()
                                            .lines()
                                            .filter(line -> line.startsWith("scheduler_task_lateness_seconds_count")))
                                    .anyMatch(line -> line.contains("job=\"reports.send\""))
                                    .anyMatch(line -> !line.contains("job=\"reports.")));
                });
    }

    /** The page is off by default, and its routes exist when the application switches it on. */
    @Test
    void shouldServePageOnlyWhenEnabled() {
        WebApplicationContextRunner web = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class, TimedJobsDashboardAutoConfiguration.class))
                .withPropertyValues("timed-jobs.shutdown.execute-existing-delayed-tasks=false");
        web.run(context -> assertThat(context).doesNotHaveBean("timedJobsDashboardRoutes"));
        web.withPropertyValues("timed-jobs.dashboard.enabled=true")
                .run(context -> assertThat(context).hasBean("timedJobsDashboardRoutes"));
        runner.withPropertyValues("timed-jobs.dashboard.enabled=true")
                .run(context ->
                        assertThat(context).as("not a web application").doesNotHaveBean("timedJobsDashboardRoutes"));
    }

    private static JobView job(TimedJobsView view, String name) {
        return view.jobs().stream()
                .filter(job -> job.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no job " + name + " in " + view.jobs()));
    }
}
