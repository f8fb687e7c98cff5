package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

class SchedulerAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    TaskExecutionAutoConfiguration.class,
                    SchedulerAutoConfiguration.class,
                    TaskSchedulingAutoConfiguration.class));

    private static LeaderFollowerScheduler engine(org.springframework.context.ApplicationContext context) {
        return context.getBean(LeaderFollowerTaskScheduler.class).getScheduledExecutor();
    }

    /** The scheduler is a bean named taskScheduler, of the concrete type, and the only TaskScheduler. */
    @Test
    void shouldDefineTaskSchedulerBean() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(TaskScheduler.class);
            assertThat(context).hasSingleBean(LeaderFollowerTaskScheduler.class);
            assertThat(context.getBean("taskScheduler")).isInstanceOf(LeaderFollowerTaskScheduler.class);
            assertThat(context.getBeanFactory().getType("taskScheduler")).isEqualTo(LeaderFollowerTaskScheduler.class);
        });
    }

    /** With @EnableScheduling, Spring Boot's own scheduler backs off in favour of ours. */
    @Test
    void shouldReplaceBootSchedulerWithEnableScheduling() {
        runner.withUserConfiguration(SchedulingEnabled.class).run(context -> {
            assertThat(context).hasSingleBean(TaskScheduler.class);
            assertThat(context.getBean(TaskScheduler.class)).isInstanceOf(LeaderFollowerTaskScheduler.class);
        });
    }

    /** Spring Boot's application task executor stays what it was: ours is no Executor. */
    @Test
    void shouldLeaveApplicationTaskExecutorAlone() {
        runner.run(context -> {
            assertThat(context).hasBean("applicationTaskExecutor");
            assertThat(context.getBeansOfType(Executor.class).values())
                    .noneMatch(LeaderFollowerTaskScheduler.class::isInstance);
        });
    }

    /** Defaults: pool size of the processors (at least 2), prefix timed-jobs-. */
    @Test
    void shouldApplyDefaults() {
        runner.run(context -> {
            assertThat(engine(context).getCorePoolSize())
                    .isEqualTo(Math.max(2, Runtime.getRuntime().availableProcessors()));
            assertThat(context.getBean(LeaderFollowerTaskScheduler.class).getThreadNamePrefix())
                    .isEqualTo("timed-jobs-");
        });
    }

    /** pool-size and thread-name-prefix reach the engine's workers. */
    @Test
    void shouldApplyPoolSizeAndThreadNamePrefix() {
        runner.withPropertyValues("timed-jobs.pool-size=3", "timed-jobs.thread-name-prefix=billing-")
                .run(context -> {
                    LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                    AtomicReference<String> threadName = new AtomicReference<>();
                    CountDownLatch ran = new CountDownLatch(1);
                    scheduler.schedule(
                            () -> {
                                threadName.set(Thread.currentThread().getName());
                                ran.countDown();
                            },
                            Instant.now());

                    assertThat(ran.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                            .isTrue();
                    assertThat(threadName.get()).startsWith("billing-");
                    assertThat(engine(context).getCorePoolSize()).isEqualTo(3);
                    assertThat(engine(context).getPoolSize()).isEqualTo(3);
                });
    }

    /** misfire-policy=skip reaches the engine: a fixed-rate task 5 periods behind drops the slots
     * in between. */
    @Test
    void shouldApplyMisfirePolicySkip() {
        ManualTicker ticker = new ManualTicker();
        runner.withPropertyValues("timed-jobs.misfire-policy=skip", "timed-jobs.pool-size=1")
                .withBean(LeaderFollowerSchedulerCustomizer.class, () -> scheduler -> scheduler.setTicker(ticker))
                .run(context -> {
                    AtomicInteger runs = new AtomicInteger();
                    ScheduledFuture<?> future = context.getBean(LeaderFollowerTaskScheduler.class)
                            .scheduleAtFixedRate(runs::incrementAndGet, Duration.ofSeconds(1));
                    await().atMost(TestDelays.LONG).until(() -> runs.get() == 1);
                    await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.SECONDS) == 1);

                    ticker.advance(Duration.ofSeconds(5));

                    // the late run (due at 1 s), then the slot due now (5 s); slots 2, 3 and 4 are dropped
                    await().atMost(TestDelays.LONG).until(() -> runs.get() == 3);
                    await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.MILLISECONDS) == 1000);
                    assertThat(runs).hasValue(3);
                });
    }

    /** The default misfire policy catches up: a task 5 periods behind runs 5 more times. */
    @Test
    void shouldCatchUpByDefault() {
        ManualTicker ticker = new ManualTicker();
        runner.withPropertyValues("timed-jobs.pool-size=1")
                .withBean(LeaderFollowerSchedulerCustomizer.class, () -> scheduler -> scheduler.setTicker(ticker))
                .run(context -> {
                    AtomicInteger runs = new AtomicInteger();
                    ScheduledFuture<?> future = context.getBean(LeaderFollowerTaskScheduler.class)
                            .scheduleAtFixedRate(runs::incrementAndGet, Duration.ofSeconds(1));
                    await().atMost(TestDelays.LONG).until(() -> runs.get() == 1);
                    await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.SECONDS) == 1);

                    ticker.advance(Duration.ofSeconds(5));

                    await().atMost(TestDelays.LONG).until(() -> runs.get() == 6);
                    await().atMost(TestDelays.LONG).until(() -> future.getDelay(TimeUnit.MILLISECONDS) == 1000);
                    assertThat(runs).hasValue(6);
                });
    }

    /**
     * virtual-threads=true gives virtual workers on Java 21 or later, and a start-up failure that
     * says why on older JVMs.
     */
    @Test
    void shouldApplyVirtualThreads() {
        runner.withPropertyValues("timed-jobs.virtual-threads=true").run(context -> {
            if (Runtime.version().feature() < 21) {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("timed-jobs.virtual-threads")
                        .hasStackTraceContaining("virtual threads need Java 21 or later");
                return;
            }
            assertThat(workerIsVirtual(context.getBean(LeaderFollowerTaskScheduler.class)))
                    .isTrue();
        });
    }

    /** Without its own setting, virtual threads follow spring.threads.virtual.enabled (on Java 21+). */
    @Test
    void shouldFollowSpringVirtualThreadsSwitch() {
        runner.withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(workerIsVirtual(context.getBean(LeaderFollowerTaskScheduler.class)))
                    .isEqualTo(Runtime.version().feature() >= 21);
        });
    }

    /** A concurrency limit without virtual threads stops start-up, naming the key and the way out. */
    @Test
    void shouldRefuseConcurrencyLimitWithoutVirtualThreads() {
        runner.withPropertyValues("timed-jobs.concurrency-limit=2").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("timed-jobs.concurrency-limit")
                    .hasStackTraceContaining("applies to virtual threads only");
        });
    }

    /** Spring Boot's own limit means nothing for a pool of platform threads, and stops nothing. */
    @Test
    void shouldIgnoreSpringConcurrencyLimitWithoutVirtualThreads() {
        runner.withPropertyValues("spring.task.scheduling.simple.concurrency-limit=2")
                .run(context -> assertThat(context).hasNotFailed());
    }

    /**
     * With virtual threads, the limit (the starter's key, else Spring Boot's) holds back tasks beyond
     * it: of four slow tasks due together with a limit of 2, two run and two wait.
     */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldHoldTasksBeyondConcurrencyLimitOnVirtualThreads() {
        for (String key : List.of("timed-jobs.concurrency-limit", "spring.task.scheduling.simple.concurrency-limit")) {
            runner.withPropertyValues("timed-jobs.virtual-threads=true", key + "=2")
                    .run(context -> {
                        LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
                        CountDownLatch release = new CountDownLatch(1);
                        AtomicInteger started = new AtomicInteger();
                        CountDownLatch twoStarted = new CountDownLatch(2);
                        for (int i = 0; i < 4; i++) {
                            scheduler.schedule(
                                    () -> {
                                        started.incrementAndGet();
                                        twoStarted.countDown();
                                        try {
                                            release.await();
                                        } catch (InterruptedException e) {
                                            Thread.currentThread().interrupt();
                                        }
                                    },
                                    Instant.now());
                        }
                        assertThat(twoStarted.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                                .isTrue();
                        // Two more are due: without the limit they would start on the first two's heels.
                        await().during(Duration.ofMillis(300))
                                .atMost(TestDelays.LONG)
                                .until(() -> started.get() == 2);
                        release.countDown();
                        await().atMost(TestDelays.LONG).until(() -> started.get() == 4);
                    });
        }
    }

    /** An explicit virtual-threads=false wins over spring.threads.virtual.enabled. */
    @Test
    void shouldLetExplicitSettingWinOverSpringVirtualThreads() {
        runner.withPropertyValues("spring.threads.virtual.enabled=true", "timed-jobs.virtual-threads=false")
                .run(context -> assertThat(workerIsVirtual(context.getBean(LeaderFollowerTaskScheduler.class)))
                        .isFalse());
    }

    private static boolean workerIsVirtual(LeaderFollowerTaskScheduler scheduler) throws Exception {
        AtomicReference<Thread> worker = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        scheduler.schedule(
                () -> {
                    worker.set(Thread.currentThread());
                    ran.countDown();
                },
                Instant.now());
        assertThat(ran.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        if (Runtime.version().feature() < 21) {
            return false;
        }
        Method isVirtual = Thread.class.getMethod("isVirtual");
        return (boolean) isVirtual.invoke(worker.get());
    }

    /** A unique TaskDecorator bean decorates the scheduler's tasks, as Spring Boot does for its own. */
    @Test
    void shouldApplyTaskDecoratorBean() {
        AtomicInteger decorated = new AtomicInteger();
        TaskDecorator decorator = task -> {
            decorated.incrementAndGet();
            return task;
        };
        runner.withBean(TaskDecorator.class, () -> decorator).run(context -> {
            context.getBean(LeaderFollowerTaskScheduler.class).schedule(() -> {}, Instant.now());
            assertThat(decorated).hasValue(1);
        });
    }

    /** Customizers run in order, on the not yet initialized scheduler. */
    @Test
    void shouldApplyCustomizersInOrder() {
        runner.withUserConfiguration(OrderedCustomizers.class).run(context -> {
            assertThat(context.getBean(OrderedCustomizers.class).calls).containsExactly("first", "second");
            assertThat(engine(context).getCorePoolSize()).isEqualTo(7);
        });
    }

    /** A TaskScheduler of the application's own under another name lives beside ours. */
    @Test
    void shouldKeepOursBesideUserTaskSchedulerOfAnotherName() {
        runner.withUserConfiguration(UserTaskScheduler.class).run(context -> {
            assertThat(context).hasSingleBean(LeaderFollowerTaskScheduler.class);
            assertThat(context).hasBean("myScheduler");
            assertThat(context.getBean("taskScheduler")).isInstanceOf(LeaderFollowerTaskScheduler.class);
        });
    }

    /**
     * A LeaderFollowerTaskScheduler the application declares without a prefix names its threads
     * after its bean, as Spring's own schedulers do; the auto-configured one keeps timed-jobs-.
     */
    @Test
    void shouldNameThreadsOfDeclaredSchedulerAfterItsBean() {
        runner.withBean("reportScheduler", LeaderFollowerTaskScheduler.class).run(context -> {
            LeaderFollowerTaskScheduler declared =
                    context.getBean("reportScheduler", LeaderFollowerTaskScheduler.class);
            AtomicReference<String> threadName = new AtomicReference<>();
            CountDownLatch ran = new CountDownLatch(1);
            declared.schedule(
                    () -> {
                        threadName.set(Thread.currentThread().getName());
                        ran.countDown();
                    },
                    Instant.now());

            assertThat(ran.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                    .isTrue();
            assertThat(threadName.get()).startsWith("reportScheduler-");
            assertThat(declared.getThreadNamePrefix()).isEqualTo("reportScheduler-");
            assertThat(context.getBean("taskScheduler", LeaderFollowerTaskScheduler.class)
                            .getThreadNamePrefix())
                    .isEqualTo("timed-jobs-");
        });
    }

    /** A ScheduledExecutorService of the application's own lives beside ours too. */
    @Test
    void shouldKeepOursBesideUserScheduledExecutorService() {
        runner.withUserConfiguration(UserScheduledExecutorService.class).run(context -> {
            assertThat(context).hasSingleBean(LeaderFollowerTaskScheduler.class);
            assertThat(context).hasSingleBean(ScheduledExecutorService.class);
        });
    }

    /** A bean of the application's own named taskScheduler makes the auto-configuration step aside. */
    @Test
    void shouldStepAsideForUserBeanNamedTaskScheduler() {
        runner.withUserConfiguration(UserNamedTaskScheduler.class).run(context -> {
            assertThat(context).doesNotHaveBean(LeaderFollowerTaskScheduler.class);
            assertThat(context).hasSingleBean(TaskScheduler.class);
            assertThat(context.getBean("taskScheduler")).isInstanceOf(ThreadPoolTaskScheduler.class);
        });
    }

    /** timed-jobs.enabled=false gives Spring Boot's default scheduler back. */
    @Test
    void shouldGiveBootDefaultBackWhenDisabled() {
        runner.withPropertyValues("timed-jobs.enabled=false")
                .withUserConfiguration(SchedulingEnabled.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LeaderFollowerTaskScheduler.class);
                    assertThat(context.getBean("taskScheduler")).isInstanceOf(ThreadPoolTaskScheduler.class);
                });
    }

    /** Without timed-jobs keys, Spring Boot's own pool size and thread name prefix still apply. */
    @Test
    void shouldFallBackToSpringBootSchedulingKeys() {
        runner.withPropertyValues(
                        "spring.task.scheduling.pool.size=5", "spring.task.scheduling.thread-name-prefix=boot-")
                .run(context -> {
                    assertThat(engine(context).getCorePoolSize()).isEqualTo(5);
                    assertThat(context.getBean(LeaderFollowerTaskScheduler.class)
                                    .getThreadNamePrefix())
                            .isEqualTo("boot-");
                });
        runner.withPropertyValues(
                        "spring.task.scheduling.pool.size=5",
                        "timed-jobs.pool-size=3",
                        "spring.task.scheduling.thread-name-prefix=boot-",
                        "timed-jobs.thread-name-prefix=jobs-")
                .run(context -> {
                    assertThat(engine(context).getCorePoolSize()).isEqualTo(3);
                    assertThat(context.getBean(LeaderFollowerTaskScheduler.class)
                                    .getThreadNamePrefix())
                            .isEqualTo("jobs-");
                });
        runner.withPropertyValues("spring.task.scheduling.pool.size=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasRootCauseInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasStackTraceContaining("spring.task.scheduling.pool.size");
        });
    }

    /** pool-size 0 fails start-up with a message naming the key and what it accepts. */
    @Test
    void shouldFailOnPoolSizeZero() {
        runner.withPropertyValues("timed-jobs.pool-size=0").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("timed-jobs.pool-size")
                    .rootCause()
                    .hasMessage("timed-jobs.pool-size must be 1 or more, was 0");
        });
    }

    /** A negative await period fails start-up with a message naming the key and what it accepts. */
    @Test
    void shouldFailOnNegativeAwaitTerminationPeriod() {
        runner.withPropertyValues("timed-jobs.shutdown.await-termination-period=-1s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessage("timed-jobs.shutdown.await-termination-period must be zero or positive"
                                    + " (for example 30s), was PT-1S");
                });
    }

    /** An unknown misfire policy fails start-up, naming the key. */
    @Test
    void shouldFailOnUnknownMisfirePolicy() {
        runner.withPropertyValues("timed-jobs.misfire-policy=sometimes").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("timed-jobs.misfire-policy")
                    .hasStackTraceContaining("sometimes");
        });
    }

    /** A pool size that is not a number fails start-up, naming the key. */
    @Test
    void shouldFailOnNonNumericPoolSize() {
        runner.withPropertyValues("timed-jobs.pool-size=many").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("timed-jobs.pool-size");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class SchedulingEnabled {}

    @Configuration(proxyBeanMethods = false)
    static class OrderedCustomizers {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        LeaderFollowerSchedulerCustomizer second() {
            return scheduler -> {
                calls.add("second");
                scheduler.setPoolSize(7);
            };
        }

        @Bean
        @Order(1)
        LeaderFollowerSchedulerCustomizer first() {
            return scheduler -> {
                calls.add("first");
                scheduler.setPoolSize(5);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UserTaskScheduler {
        @Bean
        ThreadPoolTaskScheduler myScheduler() {
            return new ThreadPoolTaskScheduler();
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
    static class UserScheduledExecutorService {
        @Bean(destroyMethod = "shutdownNow")
        ScheduledExecutorService myExecutor() {
            return Executors.newSingleThreadScheduledExecutor();
        }
    }
}
