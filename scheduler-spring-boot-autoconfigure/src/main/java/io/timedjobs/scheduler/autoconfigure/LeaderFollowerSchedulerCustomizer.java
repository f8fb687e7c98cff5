package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;

/**
 * Callback for what the {@code timed-jobs.*} properties can't express: the auto-configured
 * {@code taskScheduler} is handed to every bean of this type, in {@link
 * org.springframework.core.Ordered order}, after the properties are applied and before it is
 * initialized.
 *
 * <p>Use the scheduler's setters, or {@link
 * LeaderFollowerTaskScheduler#addBuilderCustomizer(java.util.function.Consumer)} to reach the
 * engine's builder:
 *
 * <pre>{@code
 * @Bean
 * LeaderFollowerSchedulerCustomizer daemonWorkers() {
 *     return scheduler -> scheduler.addBuilderCustomizer(builder -> builder.daemon(true));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface LeaderFollowerSchedulerCustomizer {

    /**
     * Customizes the scheduler.
     *
     * @param scheduler the scheduler, configured from properties and not yet initialized
     */
    void customize(LeaderFollowerTaskScheduler scheduler);
}
