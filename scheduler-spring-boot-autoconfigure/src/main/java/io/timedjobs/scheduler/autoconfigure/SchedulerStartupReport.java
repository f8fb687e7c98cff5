package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.NamedBeanHolder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.task.SimpleAsyncTaskSchedulerCustomizer;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.scheduling.config.TaskSchedulerRouter;

/**
 * Tells at start-up, once, which scheduler runs unqualified {@code @Scheduled} jobs, why the
 * starter stepped aside when it did, and which of Spring Boot's scheduling keys and customizers
 * have no effect on the Timed Jobs scheduler. Called by the container only, on the thread that
 * refreshes the context.
 *
 * <p>As a {@link SchedulingConfigurer} ordered last, it sees the scheduler that the application's
 * own configurers chose for {@code @Scheduled} jobs, which no bean condition can see: those run
 * after the beans are defined.
 */
final class SchedulerStartupReport implements SmartInitializingSingleton, SchedulingConfigurer, Ordered {

    private static final Log logger = LogFactory.getLog(SchedulerStartupReport.class);

    private static final ConfigurationPropertyName BOOT_SCHEDULING =
            ConfigurationPropertyName.of("spring.task.scheduling");

    /** Spring Boot's scheduling keys that the Timed Jobs scheduler reads as fallbacks. */
    private static final Set<ConfigurationPropertyName> HONOURED_BOOT_KEYS = Set.of(
            ConfigurationPropertyName.of(SchedulerAutoConfiguration.BOOT_POOL_SIZE_PROPERTY),
            ConfigurationPropertyName.of(SchedulerAutoConfiguration.BOOT_THREAD_NAME_PREFIX_PROPERTY),
            ConfigurationPropertyName.of(SchedulerAutoConfiguration.BOOT_CONCURRENCY_LIMIT_PROPERTY),
            ConfigurationPropertyName.of(SchedulerAutoConfiguration.BOOT_AWAIT_TERMINATION_PROPERTY),
            ConfigurationPropertyName.of(SchedulerAutoConfiguration.BOOT_AWAIT_TERMINATION_PERIOD_PROPERTY));

    private static final String NAME = SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME;

    private final ConfigurableListableBeanFactory beanFactory;
    private final Environment environment;

    SchedulerStartupReport(ConfigurableListableBeanFactory beanFactory, Environment environment) {
        this.beanFactory = beanFactory;
        this.environment = environment;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (!environment.getProperty(SchedulerProperties.PREFIX + ".enabled", Boolean.class, true)) {
            logger.info("Timed Jobs is off (" + SchedulerProperties.PREFIX
                    + ".enabled=false): it defines no scheduler, and Spring Boot's own runs @Scheduled jobs");
            return;
        }
        if (!beanFactory.containsBean(NAME)) {
            return;
        }
        Class<?> type = beanFactory.getType(NAME);
        if (type == null || !LeaderFollowerTaskScheduler.class.isAssignableFrom(type)) {
            logger.info("Timed Jobs stepped aside: the application defines its own bean '" + NAME + "'"
                    + (type != null ? " (" + type.getName() + ")" : "")
                    + "; rename that bean to keep both schedulers");
            return;
        }
        warnAboutIgnoredBootSettings();
    }

    private void prestartOurs() {
        String ours = ourScheduler();
        if (ours != null) {
            beanFactory.getBean(ours, LeaderFollowerTaskScheduler.class).prestartWorker();
        }
    }

    /** Warns once, naming each Spring Boot key and customizer bean that cannot apply here. */
    private void warnAboutIgnoredBootSettings() {
        List<String> ignored = new ArrayList<>();
        for (String key : ignoredBootKeys()) {
            ignored.add("property '" + key + "'");
        }
        for (String bean : beanFactory.getBeanNamesForType(ThreadPoolTaskSchedulerCustomizer.class, true, false)) {
            ignored.add("ThreadPoolTaskSchedulerCustomizer bean '" + bean + "'");
        }
        for (String bean : beanFactory.getBeanNamesForType(SimpleAsyncTaskSchedulerCustomizer.class, true, false)) {
            ignored.add("SimpleAsyncTaskSchedulerCustomizer bean '" + bean + "'");
        }
        if (!ignored.isEmpty()) {
            logger.warn("Timed Jobs replaced Spring Boot's task scheduler, so these settings of Spring's scheduler"
                    + " have no effect: " + String.join(", ", ignored)
                    + ". Use timed-jobs.* keys and LeaderFollowerSchedulerCustomizer beans instead.");
        }
    }

    private List<String> ignoredBootKeys() {
        List<String> keys = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream()
                        .filter(BOOT_SCHEDULING::isAncestorOf)
                        .filter(name -> !HONOURED_BOOT_KEYS.contains(name))
                        .map(ConfigurationPropertyName::toString)
                        .filter(name -> !keys.contains(name))
                        .forEach(keys::add);
            }
        }
        return keys;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar registrar) {
        TaskScheduler chosen = registrar.getScheduler();
        if (chosen == null || chosen instanceof TaskSchedulerRouter) {
            logger.info(describeDefaultScheduler());
            prestartOurs();
            return;
        }
        String ours = ourScheduler();
        if (ours != null && beanFactory.getBean(ours) == chosen) {
            logger.info("@Scheduled jobs run on '" + ours + "' (Timed Jobs), set by a SchedulingConfigurer");
            prestartOurs();
            return;
        }
        logger.info("A SchedulingConfigurer set " + chosen + " as the scheduler of @Scheduled jobs"
                + (ours != null
                        ? "; the Timed Jobs scheduler '" + ours + "' runs none of them and starts no thread"
                                + " unless a task is scheduled on it directly"
                        : ""));
    }

    /** Follows Spring's router: the unique or primary TaskScheduler, else the one named taskScheduler. */
    private String describeDefaultScheduler() {
        String name;
        String why;
        try {
            NamedBeanHolder<TaskScheduler> holder = beanFactory.resolveNamedBean(TaskScheduler.class);
            name = holder.getBeanName();
            why = beanFactory.getBeanNamesForType(TaskScheduler.class).length == 1
                    ? "the only TaskScheduler bean"
                    : "the TaskScheduler bean marked @Primary";
        } catch (NoUniqueBeanDefinitionException ex) {
            if (!beanFactory.containsBean(NAME)) {
                return "Unqualified @Scheduled jobs: no single default among the TaskScheduler beans "
                        + ex.getBeanNamesFound() + "; Spring decides as its router does";
            }
            name = NAME;
            why = "the bean named '" + NAME + "' among the TaskScheduler beans " + ex.getBeanNamesFound();
        } catch (NoSuchBeanDefinitionException ex) {
            return "Unqualified @Scheduled jobs run on Spring's own fallback scheduler: there is no TaskScheduler bean";
        }
        Class<?> type = beanFactory.getType(name);
        String kind = type != null && LeaderFollowerTaskScheduler.class.isAssignableFrom(type)
                ? "Timed Jobs"
                : type != null ? type.getSimpleName() : "unknown type";
        return "Unqualified @Scheduled jobs run on '" + name + "' (" + kind + "): " + why;
    }

    private @Nullable String ourScheduler() {
        if (!beanFactory.containsBean(NAME)) {
            return null;
        }
        Class<?> type = beanFactory.getType(NAME);
        return type != null && LeaderFollowerTaskScheduler.class.isAssignableFrom(type) ? NAME : null;
    }
}
