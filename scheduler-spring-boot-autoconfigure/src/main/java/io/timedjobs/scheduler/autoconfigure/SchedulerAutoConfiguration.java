package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;

/**
 * Replaces Spring Boot's default task scheduler with a {@link LeaderFollowerTaskScheduler} named
 * {@code taskScheduler}, configured from {@link SchedulerProperties}.
 *
 * <p>It runs before Spring Boot's {@link TaskSchedulingAutoConfiguration}, which then backs off
 * because a {@link TaskScheduler} exists. Unlike Spring Boot's scheduler, which exists only with
 * {@code @EnableScheduling}, this one is defined whenever the starter is present and {@code
 * timed-jobs.enabled} is not false, so that an injected {@code TaskScheduler} works without
 * {@code @EnableScheduling} too. It costs nothing until used: its threads start with the first
 * task.
 *
 * <p>It backs off when the application defines its own {@link TaskScheduler} or {@link
 * ScheduledExecutorService}.
 */
@AutoConfiguration(after = TaskExecutionAutoConfiguration.class, before = TaskSchedulingAutoConfiguration.class)
@ConditionalOnProperty(prefix = SchedulerProperties.PREFIX, name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SchedulerProperties.class)
public class SchedulerAutoConfiguration {

    /** Name of the auto-configured scheduler, the one {@code @Scheduled} methods pick by default. */
    public static final String TASK_SCHEDULER_BEAN_NAME =
            ScheduledAnnotationBeanPostProcessor.DEFAULT_TASK_SCHEDULER_BEAN_NAME;

    private static final String VIRTUAL_THREADS_PROPERTY = "spring.threads.virtual.enabled";

    /** Spring Boot's own pool size key: the fallback when timed-jobs.pool-size is not set. */
    private static final String BOOT_POOL_SIZE_PROPERTY = "spring.task.scheduling.pool.size";

    /** Spring Boot's own thread name key: the fallback when timed-jobs.thread-name-prefix is not set. */
    private static final String BOOT_THREAD_NAME_PREFIX_PROPERTY = "spring.task.scheduling.thread-name-prefix";

    @Bean(name = TASK_SCHEDULER_BEAN_NAME)
    @ConditionalOnMissingBean({TaskScheduler.class, ScheduledExecutorService.class})
    public LeaderFollowerTaskScheduler taskScheduler(
            SchedulerProperties properties,
            Environment environment,
            ObjectProvider<TaskDecorator> taskDecorator,
            ObjectProvider<LeaderFollowerSchedulerCustomizer> customizers) {
        LeaderFollowerTaskScheduler scheduler = new LeaderFollowerTaskScheduler();
        Integer poolSize = properties.getPoolSize();
        if (poolSize == null) {
            poolSize = environment.getProperty(BOOT_POOL_SIZE_PROPERTY, Integer.class);
        }
        if (poolSize != null) {
            if (poolSize < 1) {
                throw new IllegalStateException((properties.getPoolSize() != null
                                ? SchedulerProperties.PREFIX + ".pool-size"
                                : BOOT_POOL_SIZE_PROPERTY)
                        + " must be 1 or more, was " + poolSize);
            }
            scheduler.setPoolSize(poolSize);
        }
        String prefix = properties.getThreadNamePrefix();
        if (prefix == null) {
            prefix = environment.getProperty(
                    BOOT_THREAD_NAME_PREFIX_PROPERTY, SchedulerProperties.DEFAULT_THREAD_NAME_PREFIX);
        }
        scheduler.setThreadNamePrefix(prefix);
        scheduler.setVirtualThreads(virtualThreads(properties, environment));
        scheduler.setMisfirePolicy(properties.getMisfirePolicy());
        SchedulerProperties.Shutdown shutdown = properties.getShutdown();
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(shutdown.isExecuteExistingDelayedTasks());
        scheduler.setContinueExistingPeriodicTasksAfterShutdownPolicy(shutdown.isContinueExistingPeriodicTasks());
        scheduler.setWaitForTasksToCompleteOnShutdown(shutdown.isAwaitTermination());
        scheduler.setAwaitTerminationPeriod(
                shutdown.isAwaitTermination() ? shutdown.getAwaitTerminationPeriod() : Duration.ZERO);
        TaskDecorator decorator = taskDecorator.getIfUnique();
        if (decorator != null) {
            scheduler.setTaskDecorator(decorator);
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(scheduler));
        return scheduler;
    }

    /**
     * An explicit setting wins; otherwise virtual threads follow Spring Boot's switch, which,
     * like Spring Boot itself, only counts on Java 21 or later.
     */
    private static boolean virtualThreads(SchedulerProperties properties, Environment environment) {
        Boolean explicit = properties.getVirtualThreads();
        if (explicit != null) {
            if (explicit && Runtime.version().feature() < 21) {
                throw new IllegalStateException(SchedulerProperties.PREFIX
                        + ".virtual-threads=true needs Java 21 or later; this JVM is Java "
                        + Runtime.version().feature());
            }
            return explicit;
        }
        return Runtime.version().feature() >= 21
                && environment.getProperty(VIRTUAL_THREADS_PROPERTY, Boolean.class, false);
    }
}
