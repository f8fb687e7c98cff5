package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.dashboard.ClusterReport;
import io.timedjobs.scheduler.dashboard.TimedJobsReport;
import io.timedjobs.scheduler.dashboard.TimedJobsView;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * What one refresh of the page's data costs the database, counted in statements on H2 with the run
 * history and durable tasks on: the same with 1 clustered job or 20, and nothing for a second
 * reader within the period the reading serves.
 */
class DashboardReadCostTest {

    /** A clustered job that fires once an hour: registered, with no run during the test. */
    static class Hourly {
        @Scheduled(fixedRate = 3_600_000, initialDelay = 3_600_000)
        void send() {}
    }

    @EnableScheduling
    static class Scheduling {}

    private static ApplicationContextRunner application(StatementCounter counter, int jobs) {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class,
                        ClusterAutoConfiguration.class,
                        DurableTaskAutoConfiguration.class,
                        TimedJobsDashboardAutoConfiguration.class))
                .withUserConfiguration(Scheduling.class)
                .withBean(javax.sql.DataSource.class, counter::dataSource)
                .withPropertyValues("timed-jobs.shutdown.execute-existing-delayed-tasks=false");
        for (int i = 0; i < jobs; i++) {
            runner = runner.withBean("hourly" + i, Hourly.class, Hourly::new);
        }
        return runner;
    }

    /** Returns the statements of one refresh of the page's data, the first one of the report. */
    private static long oneRefresh(int jobs) {
        StatementCounter counter = new StatementCounter(ClusterAutoConfigurationTest.h2());
        long[] statements = new long[1];
        application(counter, jobs).run(context -> {
            awaitJobs(context, jobs);
            TimedJobsReport report = context.getBean(TimedJobsReport.class);
            statements[0] = counter.counting(report::view);
            assertThat(report.view().jobs()).hasSize(jobs);
        });
        return statements[0];
    }

    private static void awaitJobs(AssertableApplicationContext context, int jobs) {
        assertThat(context).hasNotFailed();
        ClusteredJobs clustered = context.getBean(ClusteredJobs.class);
        await().atMost(TestDelays.LONG).until(() -> clustered.jobNames().size() == jobs);
    }

    /**
     * A refresh of the page's data costs the same few statements with 20 clustered jobs as with 1:
     * no read is one per job.
     */
    @Test
    void shouldReadTheSameFewStatementsWhateverTheJobCount() {
        long one = oneRefresh(1);
        long twenty = oneRefresh(20);

        assertThat(one).isPositive().isLessThanOrEqualTo(8);
        assertThat(twenty).isEqualTo(one);
    }

    /**
     * Readers within the period a reading serves share it (no statement for the second); a change
     * made through the report, a pause, makes the next reader read anew.
     */
    @Test
    void shouldShareOneReadingBetweenReadersUntilAChange() {
        StatementCounter counter = new StatementCounter(ClusterAutoConfigurationTest.h2());
        application(counter, 3).run(context -> {
            awaitJobs(context, 3);
            TimedJobsReport report = new TimedJobsReport(
                    context.getBean(LeaderFollowerTaskScheduler.class),
                    "taskScheduler",
                    null,
                    context.getBean(ClusterReport.class),
                    Duration.ofHours(1));

            long first = counter.counting(report::view);
            long second = counter.counting(report::view);
            assertThat(report.pause("hourly0.send").done()).isTrue();
            TimedJobsView[] afterPause = new TimedJobsView[1];
            long third = counter.counting(() -> afterPause[0] = report.view());

            assertThat(first).isPositive();
            assertThat(second).isZero();
            assertThat(third).isEqualTo(first);
            assertThat(afterPause[0].jobs())
                    .filteredOn(job -> job.name().equals("hourly0.send"))
                    .singleElement()
                    .satisfies(job -> assertThat(job.paused()).isTrue());
        });
    }

    /** Each view reads anew when the reading serves for no time at all. */
    @Test
    void shouldReadEachTimeWithoutAPeriod() {
        StatementCounter counter = new StatementCounter(ClusterAutoConfigurationTest.h2());
        application(counter, 1).run(context -> {
            awaitJobs(context, 1);
            TimedJobsReport report = new TimedJobsReport(
                    context.getBean(LeaderFollowerTaskScheduler.class),
                    "taskScheduler",
                    null,
                    context.getBean(ClusterReport.class),
                    Duration.ZERO);

            long first = counter.counting(report::view);
            assertThat(counter.counting(report::view)).isEqualTo(first);
        });
    }
}
