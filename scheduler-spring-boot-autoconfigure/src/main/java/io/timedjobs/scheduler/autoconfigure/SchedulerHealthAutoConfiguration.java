package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The {@code timedJobs} health component and the {@code timedJobs} info entry of the
 * auto-configured scheduler, when Spring Boot's actuator is present. One jar serves Spring Boot
 * 3.5 and 4, which keep the health types in different packages: see {@link HealthApi}.
 */
@AutoConfiguration(
        after = SchedulerAutoConfiguration.class,
        beforeName = {
            // Spring Boot 4
            "org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.info.InfoContributorAutoConfiguration"
        })
@ConditionalOnBean(
        name = SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME,
        value = LeaderFollowerTaskScheduler.class)
public class SchedulerHealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @Conditional(HealthApiPresent.class)
    @ConditionalOnProperty(prefix = "management.health.timed-jobs", name = "enabled", matchIfMissing = true)
    static class Health {

        @Bean
        SchedulerHealthIndicatorFactoryBean<?> timedJobsHealthIndicator(
                @Qualifier(SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME)
                        ObjectProvider<LeaderFollowerTaskScheduler> taskScheduler,
                SchedulerProperties properties,
                ObjectProvider<SchedulerHealth.ClusterPart> cluster) {
            HealthApi api = HealthApi.find(SchedulerHealthAutoConfiguration.class.getClassLoader());
            if (api == null) {
                throw new IllegalStateException("Spring Boot's health types are not on the class path");
            }
            return new SchedulerHealthIndicatorFactoryBean<>(
                    api, taskScheduler, properties.getHealth().getLatenessThreshold(), cluster);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.info.InfoContributor")
    @ConditionalOnProperty(prefix = "management.info.timed-jobs", name = "enabled", matchIfMissing = true)
    static class Info {

        @Bean
        SchedulerInfoContributor timedJobsInfoContributor(
                @Qualifier(SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME)
                        LeaderFollowerTaskScheduler taskScheduler) {
            return new SchedulerInfoContributor(taskScheduler);
        }
    }

    /** Matches when either Spring Boot line's health types are on the class path. */
    static final class HealthApiPresent implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ClassLoader classLoader = context.getClassLoader();
            return HealthApi.find(classLoader != null ? classLoader : HealthApiPresent.class.getClassLoader()) != null;
        }
    }
}
