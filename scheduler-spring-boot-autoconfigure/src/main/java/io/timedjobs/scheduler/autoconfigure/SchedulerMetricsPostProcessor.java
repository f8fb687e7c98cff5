package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Instruments each {@link LeaderFollowerTaskScheduler} bean: the lateness timer must be wired into
 * the engine before it is built, so this runs before the bean's initialization; the gauges and
 * counters read the built engine, so they follow it.
 */
final class SchedulerMetricsPostProcessor implements BeanPostProcessor {

    private static final Log logger = LogFactory.getLog(SchedulerMetricsPostProcessor.class);

    private final ObjectProvider<MeterRegistry> meterRegistry;
    private final Environment environment;

    SchedulerMetricsPostProcessor(ObjectProvider<MeterRegistry> meterRegistry, Environment environment) {
        this.meterRegistry = meterRegistry;
        this.environment = environment;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof LeaderFollowerTaskScheduler scheduler) {
            MeterRegistry registry = meterRegistry.getIfAvailable();
            if (registry != null) {
                try {
                    scheduler.addExecutionListener(
                            SchedulerMetrics.latenessTimer(registry, beanName, latenessHistogram()));
                } catch (IllegalStateException initializedEarly) {
                    logger.info("Scheduler '" + beanName + "' was initialized before its lateness timer could be"
                            + " attached; 'scheduler.task.lateness' is not recorded for it");
                }
            }
        }
        return bean;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof LeaderFollowerTaskScheduler scheduler) {
            MeterRegistry registry = meterRegistry.getIfAvailable();
            if (registry != null) {
                SchedulerMetrics.bindFigures(registry, beanName, scheduler.getScheduledExecutor());
            }
        }
        return bean;
    }

    private boolean latenessHistogram() {
        @Nullable
        Boolean value = Binder.get(environment)
                .bind(SchedulerProperties.PREFIX + ".metrics.lateness-histogram", Boolean.class)
                .orElse(Boolean.FALSE);
        return Boolean.TRUE.equals(value);
    }
}
