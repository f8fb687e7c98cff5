package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A user's application that fails to start: what Spring Boot prints is a failure analysis that
 * names the key or the bean and what to do, not a raw stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureAnalysisTest {

    private static void startExpectingFailure(Class<?>[] sources, String... properties) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(sources)
                        .web(WebApplicationType.NONE)
                        .properties(properties)
                        .run()
                        .close())
                .isInstanceOf(Exception.class);
    }

    private static void startExpectingFailure(String... properties) {
        startExpectingFailure(new Class<?>[] {PlainApplication.class}, properties);
    }

    /** A misspelled timed-jobs key stops start-up, and the analysis names it. */
    @Test
    void shouldNameMisspelledKey(CapturedOutput output) {
        startExpectingFailure("timed-jobs.pool-sise=4");

        assertThat(output).contains("APPLICATION FAILED TO START").contains("timed-jobs.pool-sise");
    }

    /** spring.task.scheduling.pool.size=0 gets an analysis naming the key and the reason. */
    @Test
    void shouldExplainBootPoolSizeZero(CapturedOutput output) {
        startExpectingFailure("spring.task.scheduling.pool.size=0");

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("spring.task.scheduling.pool.size")
                .contains("needs at least one worker thread");
    }

    /** timed-jobs.virtual-threads=true on Java 17 to 20 gets an analysis saying it needs Java 21. */
    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void shouldExplainVirtualThreadsBeforeJava21(CapturedOutput output) {
        startExpectingFailure("timed-jobs.virtual-threads=true");

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("timed-jobs.virtual-threads")
                .contains("virtual threads need Java 21 or later");
    }

    /** A bad misfire policy lists the choices as the README spells them. */
    @Test
    void shouldListMisfirePoliciesAsConfigured(CapturedOutput output) {
        startExpectingFailure("timed-jobs.misfire-policy=sometimes");

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("timed-jobs.misfire-policy")
                .contains("catch-up, skip")
                .doesNotContain("CATCH_UP");
    }

    /** Injecting Spring's ThreadPoolTaskScheduler says that the starter replaced it, and what to inject. */
    @Test
    void shouldExplainReplacedThreadPoolTaskScheduler(CapturedOutput output) {
        startExpectingFailure(new Class<?>[] {PlainApplication.class, NeedsThreadPoolTaskScheduler.class});

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("replaces that scheduler with a LeaderFollowerTaskScheduler named 'taskScheduler'")
                .contains("Inject org.springframework.scheduling.TaskScheduler");
    }

    /** With a second scheduler, injecting TaskScheduler by type alone names both beans. */
    @Test
    void shouldNameBothSchedulersWhenInjectionIsAmbiguous(CapturedOutput output) {
        startExpectingFailure(new Class<?>[] {PlainApplication.class, SecondScheduler.class, NeedsTaskScheduler.class});

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("taskScheduler")
                .contains("reportScheduler")
                .contains("@Qualifier");
    }

    /**
     * A second application under the instance name of one that runs (and beats) on the same database
     * does not start, and the analysis names the key; the first keeps running.
     */
    @Test
    void shouldRefuseASecondInstanceUnderTheSameName(CapturedOutput output) {
        String[] properties = {
            "timed-jobs.cluster.instance-name=web-1",
            "timed-jobs.cluster.poll-interval=200ms",
            "spring.main.banner-mode=off"
        };
        ConfigurableApplicationContext first = new SpringApplicationBuilder(PlainApplication.class, SharedH2.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .run();
        try {
            startExpectingFailure(new Class<?>[] {PlainApplication.class, SharedH2.class}, properties);

            assertThat(output)
                    .contains("APPLICATION FAILED TO START")
                    .contains("timed-jobs.cluster.instance-name")
                    .contains("'web-1'")
                    .contains("Give each instance its own timed-jobs.cluster.instance-name");
            assertThat(first.isRunning()).isTrue();
        } finally {
            first.close();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlainApplication {}

    /** One in-memory H2 database for every application that imports it. */
    @Configuration(proxyBeanMethods = false)
    static class SharedH2 {
        @Bean
        DataSource dataSource() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL("jdbc:h2:mem:startup_failure_shared;DB_CLOSE_DELAY=-1");
            dataSource.setUser("sa");
            return dataSource;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NeedsThreadPoolTaskScheduler {
        @Bean
        Object reportJob(ThreadPoolTaskScheduler scheduler) {
            return scheduler;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondScheduler {
        @Bean(destroyMethod = "shutdown")
        ThreadPoolTaskScheduler reportScheduler() {
            return new ThreadPoolTaskScheduler();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NeedsTaskScheduler {
        @Bean
        Object reportJob(TaskScheduler scheduler) {
            return scheduler;
        }
    }
}
