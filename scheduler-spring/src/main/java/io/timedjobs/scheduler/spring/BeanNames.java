package io.timedjobs.scheduler.spring;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** Stateless, any thread: finds the bean name of an object in a Spring application context. */
final class BeanNames {

    private BeanNames() {}

    /**
     * Returns the name of the singleton that is {@code target} itself, or null if there is none,
     * the context is not configurable, or it is closed.
     */
    static @Nullable String singletonName(@Nullable ApplicationContext applicationContext, Object target) {
        if (applicationContext instanceof ConfigurableApplicationContext context) {
            try {
                return ScheduledJobNames.singletonName(context.getBeanFactory(), target);
            } catch (IllegalStateException closed) {
                return null;
            }
        }
        return null;
    }
}
