package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Publishes the meters of every {@link io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler}
 * bean to the application's {@link MeterRegistry}, tagged with the bean name; see {@link
 * SchedulerMetrics} for the list.
 *
 * <p>Spring Boot moved its metrics auto-configuration between 3.5 and 4.0, so the ordering names
 * both places.
 */
@AutoConfiguration(
        after = SchedulerAutoConfiguration.class,
        afterName = {
            // Spring Boot 4
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".metrics", name = "enabled", matchIfMissing = true)
public class SchedulerMetricsAutoConfiguration {

    @Bean
    static SchedulerMetricsPostProcessor schedulerMetricsPostProcessor(
            ObjectProvider<MeterRegistry> meterRegistry, Environment environment) {
        return new SchedulerMetricsPostProcessor(meterRegistry, environment);
    }
}
