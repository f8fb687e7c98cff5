package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Explains a missing {@link ThreadPoolTaskScheduler} or {@link SimpleAsyncTaskScheduler}: the
 * starter replaced Spring Boot's scheduler of that type. Called by Spring Boot only, when start-up
 * fails.
 */
final class ReplacedSchedulerFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
        implements Ordered {

    @Override
    public int getOrder() {
        // before Spring Boot's generic analysis of a missing bean
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
        Class<?> type = cause.getBeanType();
        if (type == null
                || !(ThreadPoolTaskScheduler.class.isAssignableFrom(type)
                        || SimpleAsyncTaskScheduler.class.isAssignableFrom(type))) {
            return null;
        }
        return new FailureAnalysis(
                "A component needs a bean of type '" + type.getName() + "', Spring Boot's own scheduler class."
                        + " The Timed Jobs starter replaces that scheduler with a LeaderFollowerTaskScheduler"
                        + " named '" + SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME + "', unless "
                        + SchedulerProperties.PREFIX + ".enabled=false.",
                "Inject org.springframework.scheduling.TaskScheduler (or"
                        + " io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler) instead. To keep Spring's"
                        + " scheduler, set " + SchedulerProperties.PREFIX + ".enabled=false, or define your own "
                        + type.getSimpleName() + " bean.",
                cause);
    }
}
