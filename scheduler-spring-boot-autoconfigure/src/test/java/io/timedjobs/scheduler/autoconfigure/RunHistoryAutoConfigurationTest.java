package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.dashboard.TimedJobsEndpoint;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryView;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The run history's bean, its keys, and its part of the endpoint. */
class RunHistoryAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchedulerAutoConfiguration.class,
                    ClusterAutoConfiguration.class,
                    DurableTaskAutoConfiguration.class,
                    TimedJobsDashboardAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues(
                    "timed-jobs.cluster.poll-interval=100ms",
                    "timed-jobs.cluster.lookahead=1s",
                    "timed-jobs.cluster.lease=2s",
                    "timed-jobs.durable.max-attempts=1",
                    "timed-jobs.shutdown.execute-existing-delayed-tasks=false");

    /** Always fails. */
    static final class Mail implements DurableTaskHandler<String> {
        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            throw new IllegalStateException("mail server <b>down</b>");
        }
    }

    static class Ticker {
        @Scheduled(fixedRate = 200)
        void tick() {}
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class App {
        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        @Bean
        Mail mail() {
            return new Mail();
        }

        @Bean
        Ticker ticker() {
            return new Ticker();
        }
    }

    /** On by default: the clustered job's runs and the durable failure are recorded and in the endpoint. */
    @Test
    void shouldRecordRunsAndShowThemInTheEndpoint() {
        runner.run(context -> {
            RunHistory history = context.getBean(RunHistory.class);
            assertThat(history.settings().retention()).isEqualTo(Duration.ofDays(7));
            assertThat(history.settings().maxRows()).isEqualTo(100_000);
            context.getBean(DurableTasks.class).schedule("mail", "welcome-7", Duration.ZERO, "hello");
            await().atMost(TestDelays.LONG)
                    .until(() -> history.find(RunHistoryQuery.all().job("ticker.tick"))
                                            .size()
                                    >= 2
                            && !history.find(RunHistoryQuery.all().task("mail")).isEmpty());

            HistoryView view = context.getBean(TimedJobsEndpoint.class)
                    .timedJobs()
                    .cluster()
                    .history();
            assertThat(view).isNotNull();
            assertThat(view.timelines().get("ticker.tick")).isNotEmpty().allSatisfy(run -> {
                assertThat(run.outcome()).isEqualTo("SUCCEEDED");
                assertThat(run.kind()).isEqualTo("JOB");
            });
            assertThat(view.lastFailures()).singleElement().satisfies(run -> {
                assertThat(run.name()).isEqualTo("mail");
                assertThat(run.taskKey()).isEqualTo("welcome-7");
                assertThat(run.outcome()).isEqualTo("FAILED");
                assertThat(run.error()).isEqualTo("java.lang.IllegalStateException: mail server <b>down</b>");
            });
        });
    }

    /** Off: nothing written, and no history in the endpoint. */
    @Test
    void shouldWriteNothingWhenOff() {
        runner.withPropertyValues("timed-jobs.history.enabled=false").run(context -> {
            RunHistory history = context.getBean(RunHistory.class);
            context.getBean(DurableTasks.class).schedule("mail", "welcome-7", Duration.ZERO, "hello");
            await().atMost(TestDelays.LONG)
                    .until(() -> context.getBean(DurableTasks.class)
                            .find("mail", "welcome-7")
                            .map(task -> task.attempts() == 1 && task.lastError() != null)
                            .orElse(false));
            assertThat(new RunHistory(
                                    context.getBean(io.timedjobs.scheduler.jdbc.database.ClusterDatabase.class),
                                    io.timedjobs.scheduler.jdbc.history.RunHistorySettings.defaults())
                            .find(RunHistoryQuery.all()))
                    .isEmpty();
            assertThat(history.enabled()).isFalse();
            assertThat(context.getBean(TimedJobsEndpoint.class)
                            .timedJobs()
                            .cluster()
                            .history())
                    .isNull();
        });
    }

    /** A retention that is not positive, or a max-rows below 1, stops start-up naming the key. */
    @Test
    void shouldRefuseBadSettings() {
        runner.withPropertyValues("timed-jobs.history.retention=-1d")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("timed-jobs.history.retention must be positive"));
        runner.withPropertyValues("timed-jobs.history.max-rows=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("timed-jobs.history.max-rows must be at least 1"));
    }
}
