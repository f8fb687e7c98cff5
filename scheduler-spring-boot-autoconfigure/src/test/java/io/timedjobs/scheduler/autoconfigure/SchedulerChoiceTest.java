package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.task.SimpleAsyncTaskSchedulerCustomizer;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Which scheduler runs unqualified {@code @Scheduled} jobs when the application has schedulers of
 * its own, what the start-up log says about it, and how Spring Boot's own scheduling settings are
 * honoured or warned about.
 */
@ExtendWith(OutputCaptureExtension.class)
class SchedulerChoiceTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    TaskExecutionAutoConfiguration.class,
                    SchedulerAutoConfiguration.class,
                    TaskSchedulingAutoConfiguration.class));

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
    }

    /**
     * A second scheduler under another name runs the jobs that name it; unqualified jobs stay on
     * ours, and the log says so.
     */
    @Test
    void shouldKeepUnqualifiedJobsOnOursBesideSecondScheduler(CapturedOutput output) {
        runner.withUserConfiguration(ReportScheduler.class, Jobs.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            awaitLatch(jobs.bothRan);

            assertThat(jobs.threads.get("unqualified")).startsWith("timed-jobs-");
            assertThat(jobs.threads.get("report")).startsWith("report-");
            assertThat(context.getBean("taskScheduler")).isInstanceOf(LeaderFollowerTaskScheduler.class);
            assertThat(output)
                    .contains("Unqualified @Scheduled jobs run on 'taskScheduler' (Timed Jobs): the bean named"
                            + " 'taskScheduler'");
        });
    }

    /**
     * A scheduler that will be used starts one parked worker at start-up, so that its first due task
     * does not wait for a thread to start: with @EnableScheduling once the jobs are routed to it.
     * Without @EnableScheduling its workers start with the first task, as the JDK's executor's do.
     */
    @Test
    void shouldPrestartOneWorkerWhenOursWillBeUsed() {
        runner.withUserConfiguration(EnableSchedulingOnly.class)
                .run(context -> assertThat(context.getBean(LeaderFollowerTaskScheduler.class)
                                .getScheduledExecutor()
                                .getPoolSize())
                        .isEqualTo(1));
        runner.run(context -> assertThat(context.getBean(LeaderFollowerTaskScheduler.class)
                        .getScheduledExecutor()
                        .getPoolSize())
                .isZero());
    }

    /** A second scheduler marked @Primary is the application's explicit choice for unqualified jobs. */
    @Test
    void shouldLetPrimarySchedulerRunUnqualifiedJobs(CapturedOutput output) {
        runner.withUserConfiguration(PrimaryReportScheduler.class, Jobs.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            awaitLatch(jobs.bothRan);

            assertThat(jobs.threads.get("unqualified")).startsWith("report-");
            assertThat(output)
                    .contains("Unqualified @Scheduled jobs run on 'reportScheduler' (ThreadPoolTaskScheduler): the"
                            + " TaskScheduler bean marked @Primary");
        });
    }

    /**
     * A SchedulingConfigurer that sets its own scheduler is detected after refresh: the log says
     * ours runs none of the jobs, holds none of them and has started no thread (the message names
     * where any worker started).
     */
    @Test
    void shouldDetectSchedulingConfigurerWithItsOwnScheduler(CapturedOutput output) {
        runner.withUserConfiguration(ConfigurerScheduler.class, Jobs.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            awaitLatch(jobs.unqualifiedRan);

            assertThat(jobs.threads.get("unqualified")).startsWith("configured-");
            assertThat(output).contains("the Timed Jobs scheduler 'taskScheduler' runs none of them");
            LeaderFollowerScheduler ours =
                    context.getBean(LeaderFollowerTaskScheduler.class).getScheduledExecutor();
            assertThat(ours.getCompletedTaskCount()).isZero();
            assertThat(ours.getQueueSize()).isZero();
            List<String> starts = context.getBean(ConfigurerScheduler.class).workerStarts;
            assertThat(ours.getPoolSize()).as("workers started at %s", starts).isZero();
        });
    }

    /** A bean of the application's own named taskScheduler: the starter steps aside and says why. */
    @Test
    void shouldLogWhyItSteppedAside(CapturedOutput output) {
        runner.withUserConfiguration(UserNamedTaskScheduler.class).run(context -> {
            assertThat(context).doesNotHaveBean(LeaderFollowerTaskScheduler.class);
            assertThat(output)
                    .contains("Timed Jobs stepped aside: the application defines its own bean 'taskScheduler'" + " ("
                            + ThreadPoolTaskScheduler.class.getName() + ")");
        });
    }

    /** timed-jobs.enabled=false: the log says the starter is off. */
    @Test
    void shouldLogWhenDisabled(CapturedOutput output) {
        runner.withPropertyValues("timed-jobs.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(LeaderFollowerTaskScheduler.class);
            assertThat(output).contains("Timed Jobs is off (timed-jobs.enabled=false)");
        });
    }

    /** Spring Boot's await-termination keys apply when the timed-jobs ones are not set. */
    @Test
    void shouldHonourBootShutdownKeys() {
        runner.withPropertyValues(
                        "spring.task.scheduling.shutdown.await-termination=true",
                        "spring.task.scheduling.shutdown.await-termination-period=2s")
                .run(context -> {
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    assertThat(scheduler.isWaitForTasksToCompleteOnShutdown()).isTrue();
                    assertThat(scheduler.getAwaitTerminationPeriod()).isEqualTo(Duration.ofSeconds(2));
                });
        runner.withPropertyValues("spring.task.scheduling.shutdown.await-termination=false")
                .run(context -> {
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    assertThat(scheduler.isWaitForTasksToCompleteOnShutdown()).isFalse();
                    assertThat(scheduler.getAwaitTerminationPeriod()).isZero();
                });
        runner.withPropertyValues(
                        "spring.task.scheduling.shutdown.await-termination-period=2s",
                        "timed-jobs.shutdown.await-termination-period=7s")
                .run(context -> assertThat(context.getBean(LeaderFollowerTaskScheduler.class)
                                .getAwaitTerminationPeriod())
                        .isEqualTo(Duration.ofSeconds(7)));
    }

    /**
     * One warning names each Spring Boot scheduling key and customizer bean that cannot apply to
     * ours; the keys it honours are not named.
     */
    @Test
    void shouldWarnOnceAboutSpringSettingsWithoutMeaningHere(CapturedOutput output) {
        runner.withPropertyValues(
                        "spring.task.scheduling.simple.task-termination-timeout=5s",
                        "spring.task.scheduling.simple.concurrency-limit=4",
                        "spring.task.scheduling.pool.size=3",
                        "spring.task.scheduling.shutdown.await-termination-period=2s")
                .withUserConfiguration(SpringCustomizers.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    String warning = output.getOut()
                            .lines()
                            .filter(line -> line.contains("have no effect"))
                            .reduce("", String::concat);
                    assertThat(warning)
                            .contains("property 'spring.task.scheduling.simple.task-termination-timeout'")
                            .contains("ThreadPoolTaskSchedulerCustomizer bean 'poolCustomizer'")
                            .contains("SimpleAsyncTaskSchedulerCustomizer bean 'simpleCustomizer'")
                            .doesNotContain("pool.size")
                            .doesNotContain("concurrency-limit")
                            .doesNotContain("await-termination-period");
                    assertThat(output.getOut().lines().filter(line -> line.contains("have no effect")))
                            .hasSize(1);
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Jobs {
        final Map<String, String> threads = new ConcurrentHashMap<>();
        final CountDownLatch unqualifiedRan = new CountDownLatch(1);
        final CountDownLatch bothRan = new CountDownLatch(2);

        @Scheduled(fixedDelay = 3_600_000)
        void unqualified() {
            if (threads.putIfAbsent("unqualified", Thread.currentThread().getName()) == null) {
                unqualifiedRan.countDown();
                bothRan.countDown();
            }
        }

        @Scheduled(fixedDelay = 3_600_000, scheduler = "reportScheduler")
        void report() {
            if (threads.putIfAbsent("report", Thread.currentThread().getName()) == null) {
                bothRan.countDown();
            }
        }
    }

    private static ThreadPoolTaskScheduler threadPool(String prefix) {
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.setThreadNamePrefix(prefix);
        return scheduler;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class EnableSchedulingOnly {}

    @Configuration(proxyBeanMethods = false)
    static class ReportScheduler {
        @Bean
        ThreadPoolTaskScheduler reportScheduler() {
            return threadPool("report-");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryReportScheduler {
        @Bean
        @Primary
        ThreadPoolTaskScheduler reportScheduler() {
            return threadPool("report-");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ConfigurerScheduler {
        final List<String> workerStarts = new CopyOnWriteArrayList<>();

        @Bean
        ThreadPoolTaskScheduler reportScheduler() {
            return threadPool("report-");
        }

        @Bean
        SchedulingConfigurer ownScheduler() {
            ThreadPoolTaskScheduler own = threadPool("configured-");
            own.initialize();
            return registrar -> registrar.setTaskScheduler(own);
        }

        /** Notes where each worker of ours starts, for the assertion's message. */
        @Bean
        LeaderFollowerSchedulerCustomizer recordWorkerStarts() {
            return scheduler -> scheduler.addBuilderCustomizer(builder -> builder.threadFactory(work -> {
                StringWriter trace = new StringWriter();
                new Throwable("worker start").printStackTrace(new PrintWriter(trace));
                workerStarts.add(trace.toString());
                Thread thread = new Thread(work, "recorded-" + workerStarts.size());
                thread.setDaemon(true);
                return thread;
            }));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserNamedTaskScheduler {
        @Bean
        ThreadPoolTaskScheduler taskScheduler() {
            return new ThreadPoolTaskScheduler();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SpringCustomizers {
        @Bean
        ThreadPoolTaskSchedulerCustomizer poolCustomizer() {
            return scheduler -> scheduler.setPoolSize(9);
        }

        @Bean
        SimpleAsyncTaskSchedulerCustomizer simpleCustomizer() {
            return scheduler -> scheduler.setConcurrencyLimit(9);
        }
    }
}
