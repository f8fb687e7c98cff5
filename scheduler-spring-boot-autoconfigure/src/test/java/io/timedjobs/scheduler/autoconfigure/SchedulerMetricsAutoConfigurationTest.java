package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

class SchedulerMetricsAutoConfigurationTest {

    /** Spring Boot's own executor metrics; its package differs between Spring Boot 3.5 and 4. */
    private static final Class<?> BOOT_EXECUTOR_METRICS = firstPresent(
            "org.springframework.boot.micrometer.metrics.autoconfigure.task.TaskExecutorMetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.task.TaskExecutorMetricsAutoConfiguration");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    TaskExecutionAutoConfiguration.class,
                    SchedulerAutoConfiguration.class,
                    SchedulerMetricsAutoConfiguration.class,
                    BOOT_EXECUTOR_METRICS))
            .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
            // tests leave tasks due in an hour: closing must not wait for them
            .withPropertyValues("timed-jobs.shutdown.execute-existing-delayed-tasks=false");

    private static Class<?> firstPresent(String... names) {
        for (String name : names) {
            if (ClassUtils.isPresent(name, null)) {
                return ClassUtils.resolveClassName(name, null);
            }
        }
        throw new IllegalStateException("None of " + List.of(names) + " is on the class path");
    }

    /** Every scheduler.* meter is there, tagged with the bean name. */
    @Test
    void shouldRegisterSchedulerMeters() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (String name : List.of(
                    "scheduler.queue.depth",
                    "scheduler.lateness",
                    "scheduler.task.lateness",
                    "scheduler.tasks.active",
                    "scheduler.pool.size",
                    "scheduler.tasks.completed",
                    "scheduler.tasks.failed",
                    "scheduler.tasks.rejected")) {
                assertThat(registry.find(name).tag("scheduler", "taskScheduler").meters())
                        .as(name)
                        .hasSize(1);
            }
        });
    }

    /** The executor.* meters dashboards know from Spring's scheduler are there, once, tagged name. */
    @Test
    void shouldRegisterExecutorMetersOnce() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (String name : List.of(
                    "executor.active",
                    "executor.queued",
                    "executor.completed",
                    "executor.pool.size",
                    "executor.pool.core",
                    "executor.pool.max",
                    "executor.queue.remaining")) {
                assertThat(registry.find(name).tag("name", "taskScheduler").meters())
                        .as(name)
                        .hasSize(1);
            }
            // Spring Boot's executor metrics still cover the application task executor
            assertThat(registry.find("executor.queued")
                            .tag("name", "applicationTaskExecutor")
                            .meters())
                    .hasSize(1);
            assertThat(registry.get("executor.pool.core")
                            .tag("name", "taskScheduler")
                            .gauge()
                            .value())
                    .isEqualTo(context.getBean(LeaderFollowerTaskScheduler.class)
                            .getScheduledExecutor()
                            .getCorePoolSize());
        });
    }

    /** scheduler.queue.depth and executor.queued equal the number of tasks waiting. */
    @Test
    void shouldReportQueueDepth() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
            Instant later = Instant.now().plusSeconds(3600);

            scheduler.schedule(() -> {}, later);
            scheduler.schedule(() -> {}, later);
            ScheduledFuture<?> third = scheduler.schedule(() -> {}, later);

            assertThat(gauge(registry, "scheduler.queue.depth")).isEqualTo(3.0);
            assertThat(registry.get("executor.queued")
                            .tag("name", "taskScheduler")
                            .gauge()
                            .value())
                    .isEqualTo(3.0);
            third.cancel(false);
            assertThat(gauge(registry, "scheduler.queue.depth")).isEqualTo(2.0);
        });
    }

    /** scheduler.task.lateness records exactly one sample per execution. */
    @Test
    void shouldRecordOneLatenessSamplePerExecution() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
            CountDownLatch ran = new CountDownLatch(5);

            for (int i = 0; i < 5; i++) {
                scheduler.schedule(ran::countDown, Instant.now());
            }

            assertThat(ran.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
            Timer timer = registry.get("scheduler.task.lateness")
                    .tag("scheduler", "taskScheduler")
                    .timer();
            await().atMost(TestDelays.LONG).until(() -> timer.count() == 5);
            await().atMost(TestDelays.LONG)
                    .until(() -> registry.get("scheduler.tasks.completed")
                                    .tag("scheduler", "taskScheduler")
                                    .functionCounter()
                                    .count()
                            == 5.0);
            assertThat(registry.get("executor.completed")
                            .tag("name", "taskScheduler")
                            .functionCounter()
                            .count())
                    .isEqualTo(5.0);
        });
    }

    /** The lateness timer publishes a percentile histogram only when asked to. */
    @Test
    void shouldPublishLatenessHistogramWhenEnabled() {
        ApplicationContextRunner prometheus = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class, SchedulerMetricsAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        prometheus.run(context -> assertThat(
                        context.getBean(PrometheusMeterRegistry.class).scrape())
                .contains("scheduler_task_lateness_seconds_count")
                .doesNotContain("scheduler_task_lateness_seconds_bucket"));
        prometheus
                .withPropertyValues("timed-jobs.metrics.lateness-histogram=true")
                .run(context -> assertThat(
                                context.getBean(PrometheusMeterRegistry.class).scrape())
                        .contains("scheduler_task_lateness_seconds_bucket"));
    }

    /**
     * scheduler.lateness says how far the most overdue waiting task is behind now: here the only
     * worker is busy and a task has been due for 3 seconds of ticker time.
     */
    @Test
    void shouldReportCurrentLateness() {
        ManualTicker ticker = new ManualTicker();
        runner.withPropertyValues("timed-jobs.pool-size=1")
                .withBean(LeaderFollowerSchedulerCustomizer.class, () -> scheduler -> scheduler.setTicker(ticker))
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    CountDownLatch started = new CountDownLatch(1);
                    CountDownLatch release = new CountDownLatch(1);
                    scheduler.schedule(
                            () -> {
                                started.countDown();
                                awaitQuietly(release);
                            },
                            scheduler.getClock().instant());
                    assertThat(started.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                            .isTrue();
                    assertThat(gauge(registry, "scheduler.lateness")).isZero();

                    scheduler.schedule(() -> {}, scheduler.getClock().instant());
                    ticker.advance(Duration.ofSeconds(3));

                    assertThat(registry.get("scheduler.lateness")
                                    .tag("scheduler", "taskScheduler")
                                    .timeGauge()
                                    .value(TimeUnit.SECONDS))
                            .isEqualTo(3.0);
                    assertThat(gauge(registry, "scheduler.tasks.active")).isEqualTo(1.0);
                    release.countDown();
                });
    }

    /** Failed and rejected executions are counted. */
    @Test
    void shouldCountFailuresAndRejections() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
            ScheduledFuture<?> failing = scheduler.schedule(
                    () -> {
                        throw new IllegalStateException("expected by the test");
                    },
                    Instant.now());
            await().atMost(TestDelays.LONG).until(failing::isDone);
            await().atMost(TestDelays.LONG).until(() -> counter(registry, "scheduler.tasks.failed") == 1.0);

            scheduler.shutdown();
            try {
                scheduler.schedule(() -> {}, Instant.now());
            } catch (java.util.concurrent.RejectedExecutionException expected) {
                // counted below
            }
            assertThat(counter(registry, "scheduler.tasks.rejected")).isEqualTo(1.0);
        });
    }

    /** timed-jobs.metrics.enabled=false publishes nothing. */
    @Test
    void shouldPublishNothingWhenDisabled() {
        runner.withPropertyValues("timed-jobs.metrics.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(SchedulerMetricsPostProcessor.class);
            assertThat(context.getBean(MeterRegistry.class)
                            .find("scheduler.queue.depth")
                            .meters())
                    .isEmpty();
        });
    }

    /** Without a MeterRegistry bean there are no meters, and the scheduler still works. */
    @Test
    void shouldBackOffWithoutMeterRegistry() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class, SchedulerMetricsAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(LeaderFollowerTaskScheduler.class);
                    assertThat(context).doesNotHaveBean(SchedulerMetricsPostProcessor.class);
                });
    }

    /** Without Micrometer on the class path the scheduler still starts. */
    @Test
    void shouldWorkWithoutMicrometer() {
        new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("io.micrometer"))
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class, SchedulerMetricsAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(LeaderFollowerTaskScheduler.class);
                    assertThat(context).doesNotHaveBean(SchedulerMetricsPostProcessor.class);
                });
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).tag("scheduler", "taskScheduler").gauge().value();
    }

    private static double counter(MeterRegistry registry, String name) {
        return registry.get(name)
                .tag("scheduler", "taskScheduler")
                .functionCounter()
                .count();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
