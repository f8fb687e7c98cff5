package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The keys {@code timed-jobs.cluster.jobs[<job>].catch-up.*}: bound by job name, checked at start-up. */
class CatchUpPropertiesTest {

    private static final String CRON = "timed-jobs.cluster.jobs[catchUpPropertiesTest.Jobs.hourly].catch-up.";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class))
            .withUserConfiguration(ClusterAutoConfigurationTest.OneDataSource.class, Jobs.class);

    @Test
    void shouldStartWithACatchUpDeclaredByJobName() {
        runner.withPropertyValues(CRON + "policy=each", CRON + "window=6h", CRON + "max-fires=6")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ClusteredJobs.class).jobNames())
                            .contains("catchUpPropertiesTest.Jobs.hourly");
                });
    }

    @Test
    void shouldRefuseAnUnknownPolicyNamingTheKey() {
        runner.withPropertyValues(CRON + "policy=sometimes")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining(
                                "timed-jobs.cluster.jobs[catchUpPropertiesTest.Jobs.hourly].catch-up.policy is"
                                        + " 'sometimes', not one of [skip, once, each]"));
    }

    @Test
    void shouldRefuseAWindowThatIsNotPositive() {
        runner.withPropertyValues(CRON + "policy=once", CRON + "window=-1h")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("Catch-up of clustered job catchUpPropertiesTest.Jobs.hourly")
                        .hasStackTraceContaining("window must be positive"));
    }

    @Test
    void shouldRefuseACatchUpOnAFixedDelayJob() {
        runner.withPropertyValues("timed-jobs.cluster.jobs[catchUpPropertiesTest.Jobs.delayed].catch-up.policy=once")
                .run(context -> assertThat(context)
                        .getFailure()
                        .hasStackTraceContaining("catchUpPropertiesTest.Jobs.delayed")
                        .hasStackTraceContaining("only cron and fixed-rate jobs have missed fires"));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Jobs {
        @Scheduled(cron = "0 0 * * * *")
        void hourly() {}

        @Scheduled(fixedDelay = 60_000, initialDelay = 60_000)
        void delayed() {}
    }
}
