package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;

/**
 * Replaces Spring Boot's default task scheduler with a {@link LeaderFollowerTaskScheduler} named
 * {@code taskScheduler}, configured from {@link SchedulerProperties} and, where they have a
 * meaning here, from Spring Boot's own {@code spring.task.scheduling.*} keys.
 *
 * <p>It runs before Spring Boot's {@link TaskSchedulingAutoConfiguration}, which then backs off
 * because a {@code TaskScheduler} exists. Unlike Spring Boot's scheduler, which exists only with
 * {@code @EnableScheduling}, this one is defined whenever the starter is present and {@code
 * timed-jobs.enabled} is not false, so that an injected {@code TaskScheduler} works without
 * {@code @EnableScheduling} too. It costs nothing until used: its threads start with the first
 * task.
 *
 * <p>It steps aside only when the application defines a bean named {@code taskScheduler}, or
 * sets {@code timed-jobs.enabled=false}. Schedulers under other names live beside it, for {@code
 * @Scheduled(scheduler = "...")}; Spring's router sends unqualified jobs to the bean named {@code
 * taskScheduler} unless the application marks its own scheduler {@code @Primary}. {@link
 * SchedulerStartupReport} logs which scheduler runs them.
 */
@AutoConfiguration(after = TaskExecutionAutoConfiguration.class, before = TaskSchedulingAutoConfiguration.class)
@EnableConfigurationProperties(SchedulerProperties.class)
public class SchedulerAutoConfiguration {

    /** Name of the auto-configured scheduler, the one {@code @Scheduled} methods pick by default. */
    public static final String TASK_SCHEDULER_BEAN_NAME =
            ScheduledAnnotationBeanPostProcessor.DEFAULT_TASK_SCHEDULER_BEAN_NAME;

    static final String VIRTUAL_THREADS_PROPERTY = "spring.threads.virtual.enabled";

    /** Spring Boot's own pool size key: the fallback when timed-jobs.pool-size is not set. */
    static final String BOOT_POOL_SIZE_PROPERTY = "spring.task.scheduling.pool.size";

    /** Spring Boot's own thread name key: the fallback when timed-jobs.thread-name-prefix is not set. */
    static final String BOOT_THREAD_NAME_PREFIX_PROPERTY = "spring.task.scheduling.thread-name-prefix";

    /** Spring Boot's limit for its {@code SimpleAsyncTaskScheduler}; ours with virtual threads. */
    static final String BOOT_CONCURRENCY_LIMIT_PROPERTY = "spring.task.scheduling.simple.concurrency-limit";

    static final String BOOT_AWAIT_TERMINATION_PROPERTY = "spring.task.scheduling.shutdown.await-termination";

    static final String BOOT_AWAIT_TERMINATION_PERIOD_PROPERTY =
            "spring.task.scheduling.shutdown.await-termination-period";

    private static final Duration DEFAULT_AWAIT_TERMINATION_PERIOD = Duration.ofSeconds(30);

    @Bean(name = TASK_SCHEDULER_BEAN_NAME)
    @ConditionalOnProperty(prefix = SchedulerProperties.PREFIX, name = "enabled", matchIfMissing = true)
    @ConditionalOnMissingBean(name = TASK_SCHEDULER_BEAN_NAME)
    public LeaderFollowerTaskScheduler taskScheduler(
            SchedulerProperties properties,
            Environment environment,
            ObjectProvider<TaskDecorator> taskDecorator,
            ObjectProvider<LeaderFollowerSchedulerCustomizer> customizers) {
        LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();
        Integer poolSize = properties.getPoolSize();
        if (poolSize == null) {
            poolSize = environment.getProperty(BOOT_POOL_SIZE_PROPERTY, Integer.class);
            if (poolSize != null && poolSize < 1) {
                throw new InvalidConfigurationPropertyValueException(
                        BOOT_POOL_SIZE_PROPERTY,
                        poolSize,
                        "the Timed Jobs scheduler needs at least one worker thread; set it to 1 or more, or"
                                + " set timed-jobs.pool-size, which takes precedence");
            }
        }
        if (poolSize != null) {
            scheduler.setPoolSize(poolSize);
        }
        String prefix = properties.getThreadNamePrefix();
        if (prefix == null) {
            prefix = environment.getProperty(
                    BOOT_THREAD_NAME_PREFIX_PROPERTY, SchedulerProperties.DEFAULT_THREAD_NAME_PREFIX);
        }
        scheduler.setThreadNamePrefix(prefix);
        boolean virtual = virtualThreads(properties, environment);
        scheduler.setVirtualThreads(virtual);
        Integer limit = concurrencyLimit(properties, environment, virtual);
        if (limit != null) {
            scheduler.setConcurrencyLimit(limit);
        }
        scheduler.setMisfirePolicy(properties.getMisfirePolicy());
        SchedulerProperties.Shutdown shutdown = properties.getShutdown();
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(shutdown.isExecuteExistingDelayedTasks());
        scheduler.setContinueExistingPeriodicTasksAfterShutdownPolicy(shutdown.isContinueExistingPeriodicTasks());
        scheduler.setWaitForTasksToCompleteOnShutdown(awaitTermination(shutdown, environment));
        scheduler.setAwaitTerminationPeriod(shutdownWait(shutdown, environment));
        TaskDecorator decorator = taskDecorator.getIfUnique();
        if (decorator != null) {
            scheduler.setTaskDecorator(decorator);
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(scheduler));
        return scheduler;
    }

    @Bean
    static SchedulerStartupReport timedJobsStartupReport(
            ConfigurableListableBeanFactory beanFactory, Environment environment) {
        return new SchedulerStartupReport(beanFactory, environment);
    }

    /**
     * How long closing the context waits for running tasks: the await-termination period when
     * shutdown waits (timed-jobs first, then Spring Boot's spring.task.scheduling keys, else 30s), zero
     * when it does not. Shared by the in-memory scheduler and the durable task engine.
     */
    static Duration shutdownWait(SchedulerProperties.Shutdown shutdown, Environment environment) {
        return awaitTermination(shutdown, environment) ? awaitTerminationPeriod(shutdown, environment) : Duration.ZERO;
    }

    private static boolean awaitTermination(SchedulerProperties.Shutdown shutdown, Environment environment) {
        Boolean explicit = shutdown.getAwaitTermination();
        if (explicit != null) {
            return explicit;
        }
        return environment.getProperty(BOOT_AWAIT_TERMINATION_PROPERTY, Boolean.class, true);
    }

    private static Duration awaitTerminationPeriod(SchedulerProperties.Shutdown shutdown, Environment environment) {
        Duration explicit = shutdown.getAwaitTerminationPeriod();
        if (explicit != null) {
            return explicit;
        }
        Duration boot = Binder.get(environment)
                .bind(BOOT_AWAIT_TERMINATION_PERIOD_PROPERTY, Duration.class)
                .orElse(null);
        if (boot == null) {
            return DEFAULT_AWAIT_TERMINATION_PERIOD;
        }
        if (boot.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(
                    BOOT_AWAIT_TERMINATION_PERIOD_PROPERTY, boot, "the period must be zero or positive");
        }
        return boot;
    }

    /**
     * The limit of tasks running at once on virtual threads: the starter's key, else Spring Boot's
     * ({@code -1}, its "unbounded", and values below 1 mean none there). Without virtual threads the
     * pool size is the limit, so Spring Boot's key has nothing to add and the starter's is refused.
     */
    private static @Nullable Integer concurrencyLimit(
            SchedulerProperties properties, Environment environment, boolean virtualThreads) {
        Integer explicit = properties.getConcurrencyLimit();
        if (explicit != null && !virtualThreads) {
            throw new InvalidConfigurationPropertyValueException(
                    SchedulerProperties.PREFIX + ".concurrency-limit",
                    explicit,
                    "the limit applies to virtual threads only; set " + SchedulerProperties.PREFIX
                            + ".virtual-threads=true (Java 21 or later), or remove the key: without virtual"
                            + " threads, " + SchedulerProperties.PREFIX + ".pool-size is the limit");
        }
        if (explicit != null || !virtualThreads) {
            return explicit;
        }
        Integer boot = environment.getProperty(BOOT_CONCURRENCY_LIMIT_PROPERTY, Integer.class);
        return boot != null && boot >= 1 ? boot : null;
    }

    /**
     * An explicit setting wins; otherwise virtual threads follow Spring Boot's switch, which,
     * like Spring Boot itself, only counts on Java 21 or later.
     */
    private static boolean virtualThreads(SchedulerProperties properties, Environment environment) {
        Boolean explicit = properties.getVirtualThreads();
        if (explicit != null) {
            if (explicit && Runtime.version().feature() < 21) {
                throw new InvalidConfigurationPropertyValueException(
                        SchedulerProperties.PREFIX + ".virtual-threads",
                        true,
                        "virtual threads need Java 21 or later, and this JVM is Java "
                                + Runtime.version().feature()
                                + "; run on Java 21 or later, or remove the key (it then follows"
                                + " spring.threads.virtual.enabled, which counts only on Java 21 or later)");
            }
            return explicit;
        }
        return Runtime.version().feature() >= 21
                && environment.getProperty(VIRTUAL_THREADS_PROPERTY, Boolean.class, false);
    }
}
