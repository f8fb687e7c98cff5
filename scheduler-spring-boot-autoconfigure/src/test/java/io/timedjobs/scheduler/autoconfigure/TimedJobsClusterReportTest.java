package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.dashboard.ActionResult;
import io.timedjobs.scheduler.dashboard.TimedJobsEndpoint;
import io.timedjobs.scheduler.dashboard.TimedJobsView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.JobView;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The timedjobs endpoint with scheduler-jdbc on H2: instances, durable tasks, retry and cancel. */
class TimedJobsClusterReportTest {

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

    /** Fails its first run, succeeds after. */
    static final class Mail implements DurableTaskHandler<String> {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("mail server down");
            }
        }
    }

    static class Digest {
        @Scheduled(fixedRate = 3_600_000)
        void send() {}
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
        Digest digest() {
            return new Digest();
        }
    }

    /**
     * A failed durable task is counted and listed with its last error; retry runs it again, and the
     * instance and its clustered job are listed.
     */
    @Test
    void shouldShowAndRetryFailedDurableTasks() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            DurableTasks tasks = context.getBean(DurableTasks.class);
            tasks.schedule("mail", "welcome-7", Duration.ZERO, "hello");
            await().atMost(TestDelays.LONG)
                    .until(() -> tasks.find("mail", "welcome-7")
                            .map(task -> task.state() == DurableTaskState.FAILED)
                            .orElse(false));

            TimedJobsView view = endpoint.timedJobs();
            assertThat(view.cluster()).isNotNull();
            String instance = context.getBean(ClusterInstance.class).name();
            assertThat(view.cluster().instance()).isEqualTo(instance);
            assertThat(view.cluster().instances())
                    .anySatisfy(i -> assertThat(i.name()).isEqualTo(instance));
            assertThat(view.cluster().durable().counts())
                    .containsEntry("FAILED", 1L)
                    .containsEntry("PENDING", 0L);
            assertThat(view.cluster().durable().failed()).singleElement().satisfies(failed -> {
                assertThat(failed.handler()).isEqualTo("mail");
                assertThat(failed.key()).isEqualTo("welcome-7");
                assertThat(failed.lastError()).contains("mail server down");
            });
            assertThat(view.jobs())
                    .extracting(JobView::name, JobView::clustered, JobView::trigger)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("digest.send", true, "every 1h"));

            ActionResult retry = endpoint.durableTask("mail", "welcome-7", "retry");
            assertThat(retry.done()).as(retry.message()).isTrue();
            await().atMost(TestDelays.LONG)
                    .until(() -> tasks.find("mail", "welcome-7").isEmpty());
            assertThat(context.getBean(Mail.class).runs).hasValue(2);
        });
    }

    /**
     * Pausing a clustered job through the endpoint writes the flag in its row, which every instance
     * reads; the view shows it paused, and resume clears it.
     */
    @Test
    void shouldPauseAClusteredJobOnEveryInstance() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            ClusterDatabase database = context.getBean(ClusterDatabase.class);
            // The job's row is written when the scheduler first asks for its next fire.
            await().atMost(TestDelays.LONG)
                    .until(() -> database.jdbc()
                                    .queryForObject(
                                            "SELECT COUNT(*) FROM "
                                                    + database.tables().jobs() + " WHERE job_name = 'digest.send'",
                                            Long.class)
                            == 1L);

            ActionResult pause = endpoint.job("digest.send", "pause");
            assertThat(pause.done()).as(pause.message()).isTrue();
            assertThat(pause.message()).contains("paused on every instance");
            assertThat(pausedFlag(database)).isTrue();
            assertThat(endpoint.timedJobs().jobs())
                    .singleElement()
                    .satisfies(job -> assertThat(job.paused()).isTrue());

            ActionResult resume = endpoint.job("digest.send", "resume");
            assertThat(resume.done()).as(resume.message()).isTrue();
            assertThat(pausedFlag(database)).isFalse();
            assertThat(endpoint.timedJobs().jobs())
                    .singleElement()
                    .satisfies(job -> assertThat(job.paused()).isFalse());
        });
    }

    private static boolean pausedFlag(ClusterDatabase database) {
        return Boolean.TRUE.equals(database.jdbc()
                .queryForObject(
                        "SELECT paused FROM " + database.tables().jobs() + " WHERE job_name = 'digest.send'",
                        Boolean.class));
    }

    /** Retry and cancel of a task that does not exist, or retry of one not failed, are refused. */
    @Test
    void shouldRefuseMissingOrNotFailedTasks() {
        runner.run(context -> {
            TimedJobsEndpoint endpoint = context.getBean(TimedJobsEndpoint.class);
            ActionResult retry = endpoint.durableTask("mail", "nobody", "retry");
            assertThat(retry.done()).isFalse();
            assertThat(retry.message()).isEqualTo("No durable task mail/nobody");
            assertThat(endpoint.cancel("mail", "nobody").message()).isEqualTo("No durable task mail/nobody");

            DurableTasks tasks = context.getBean(DurableTasks.class);
            tasks.schedule("mail", "later", Duration.ofHours(1), "hello");
            assertThat(endpoint.durableTask("mail", "later", "retry").message())
                    .isEqualTo("Durable task mail/later is PENDING, not FAILED");
            ActionResult cancel = endpoint.cancel("mail", "later");
            assertThat(cancel.done()).isTrue();
            assertThat(tasks.find("mail", "later")).isEmpty();
        });
    }
}
