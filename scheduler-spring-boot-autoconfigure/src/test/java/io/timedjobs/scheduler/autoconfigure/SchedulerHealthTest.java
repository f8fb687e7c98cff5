package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The timedJobs health indicator, as a bean of the running Spring Boot line's HealthIndicator
 * type, read through that type's own methods.
 */
class SchedulerHealthTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(SchedulerAutoConfiguration.class, SchedulerHealthAutoConfiguration.class));

    private static HealthApi api() {
        HealthApi api = HealthApi.find(SchedulerHealthTest.class.getClassLoader());
        assertThat(api).isNotNull();
        return api;
    }

    private static Object indicator(ApplicationContext context) {
        Map<String, ?> indicators = context.getBeansOfType(api().healthIndicatorType());
        assertThat(indicators).containsKey("timedJobsHealthIndicator");
        return indicators.get("timedJobsHealthIndicator");
    }

    /** Reads code and details through the Health type of whichever Boot line runs. */
    private static Map<String, Object> health(Object indicator) throws Exception {
        Object health = indicator.getClass().getMethod("health").invoke(indicator);
        Method getStatus = health.getClass().getMethod("getStatus");
        Object status = getStatus.invoke(health);
        String code = (String) status.getClass().getMethod("getCode").invoke(status);
        @SuppressWarnings("unchecked")
        Map<String, Object> details =
                (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health);
        return Map.of("status", code, "details", details);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> details(Map<String, Object> health) {
        return (Map<String, Object>) health.get("details");
    }

    /** UP while running, with queue depth, pool size, active tasks and lateness. */
    @Test
    void shouldReportUpWithDetails() {
        runner.withPropertyValues("timed-jobs.pool-size=3").run(context -> {
            Map<String, Object> health = health(indicator(context));

            assertThat(health.get("status")).isEqualTo("UP");
            assertThat(details(health))
                    .containsEntry("queueDepth", 0)
                    .containsEntry("poolSize", 3)
                    .containsEntry("activeTasks", 0)
                    .containsEntry("lateness", "PT0S")
                    .doesNotContainKey("late");
        });
    }

    /**
     * Above the lateness threshold: status LATE and late=true; never DOWN. Below it again: UP.
     */
    @Test
    void shouldReportLateAboveThreshold() {
        ManualTicker ticker = new ManualTicker();
        runner.withPropertyValues("timed-jobs.pool-size=1", "timed-jobs.health.lateness-threshold=1m")
                .withBean(LeaderFollowerSchedulerCustomizer.class, () -> scheduler -> scheduler.setTicker(ticker))
                .run(context -> {
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    CountDownLatch started = new CountDownLatch(1);
                    CountDownLatch release = new CountDownLatch(1);
                    scheduler.schedule(
                            () -> {
                                started.countDown();
                                try {
                                    release.await();
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            scheduler.getClock().instant());
                    started.await();
                    Instant dueSoon = scheduler.getClock().instant().plusSeconds(10);
                    scheduler.schedule(() -> {}, dueSoon);
                    Object indicator = indicator(context);
                    assertThat(details(health(indicator))).containsEntry("late", false);

                    ticker.advance(Duration.ofMinutes(2));

                    Map<String, Object> late = health(indicator);
                    assertThat(late.get("status")).isEqualTo("LATE");
                    assertThat(details(late))
                            .containsEntry("late", true)
                            .containsEntry("queueDepth", 1)
                            .containsEntry("activeTasks", 1)
                            .containsEntry("latenessThreshold", "PT1M");
                    release.countDown();
                    await().atMost(TestDelays.LONG)
                            .until(() -> health(indicator).get("status").equals("UP"));
                });
    }

    /** The indicator can be switched off the way Spring Boot's own are. */
    @Test
    void shouldBeSwitchedOffByProperty() {
        runner.withPropertyValues("management.health.timed-jobs.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("timedJobsHealthIndicator"));
    }

    /** Without the starter's scheduler there is nothing to report. */
    @Test
    void shouldBackOffWithoutOurScheduler() {
        runner.withPropertyValues("timed-jobs.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("timedJobsHealthIndicator"));
    }
}
