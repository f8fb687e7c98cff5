package io.timedjobs.scheduler.test;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.autoconfigure.SchedulerAutoConfiguration;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Imported by {@link AutoConfigureManualTicker} only: a {@link ManualTicker} bean, and a post
 * processor that sets it as the ticker of every {@link LeaderFollowerTaskScheduler} bean before
 * that bean builds its engine.
 */
@AutoConfiguration(before = SchedulerAutoConfiguration.class)
public class ManualTickerAutoConfiguration {

    /** Longest time one {@code advance} waits for what came due to finish. */
    public static final Duration AWAIT_EXECUTIONS = Duration.ofSeconds(30);

    @Bean
    @ConditionalOnMissingBean
    public ManualTicker manualTicker() {
        return ManualTicker.startingNow(AWAIT_EXECUTIONS);
    }

    @Bean
    static BeanPostProcessor manualTickerSchedulers(ObjectProvider<ManualTicker> ticker) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                if (bean instanceof LeaderFollowerTaskScheduler scheduler) {
                    scheduler.setTicker(ticker.getObject());
                }
                return bean;
            }
        };
    }
}
