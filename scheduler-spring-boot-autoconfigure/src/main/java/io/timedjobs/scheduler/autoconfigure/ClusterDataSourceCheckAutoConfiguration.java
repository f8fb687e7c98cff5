package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot auto-configuration, read by Boot only. With {@code scheduler-jdbc} on the class path,
 * the cluster is either on or off on purpose: when {@link ClusterAutoConfiguration} stepped aside for
 * want of a {@code DataSource}, start-up fails with a {@link ClusterDataSourceException} that says
 * what is missing; with {@code timed-jobs.cluster.enabled=false}, one INFO line at start-up says
 * that jobs run on every instance. With {@code timed-jobs.enabled=false} (Spring's own scheduler
 * runs the jobs) nothing is checked.
 *
 * <p>Ordered after the cluster's and Spring Boot's DataSource auto-configurations, so that it sees
 * every DataSource they define.
 */
@AutoConfiguration(
        after = ClusterAutoConfiguration.class,
        afterName = {
            // Spring Boot 4
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
        })
@ConditionalOnClass(ClusterDatabase.class)
public class ClusterDataSourceCheckAutoConfiguration {

    private static final Log logger = LogFactory.getLog(ClusterDataSourceCheckAutoConfiguration.class);

    /**
     * Timed Jobs is on ({@code timed-jobs.enabled}, the default): an application that turned it off
     * runs Spring's own scheduler and wants nothing of the cluster.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = SchedulerProperties.PREFIX, name = "enabled", matchIfMissing = true)
    static class SchedulerOn {

        /**
         * The cluster is wanted (the default) and was not configured, for want of a DataSource. (With a
         * DataSource and no cluster, the application excluded the cluster's auto-configuration itself.)
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnProperty(
                prefix = SchedulerProperties.PREFIX + ".cluster",
                name = "enabled",
                matchIfMissing = true)
        @ConditionalOnMissingBean({ClusterDatabase.class, DataSource.class})
        static class NoClusterDatabase {

            @Bean
            static SmartInitializingSingleton timedJobsClusterDataSourceCheck(
                    ConfigurableListableBeanFactory beanFactory) {
                throw MissingDataSource.explain(beanFactory.getBeanClassLoader());
            }
        }
    }

    /** The cluster is off on purpose: say so once, since every instance then runs every job. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".cluster", name = "enabled", havingValue = "false")
    static class ClusterDisabled {

        @Bean
        static SmartInitializingSingleton timedJobsClusterDisabledNotice() {
            return () -> logger.info("Timed Jobs: " + SchedulerProperties.PREFIX + ".cluster.enabled=false, so"
                    + " @Scheduled jobs run on every instance (no database coordinates them) and durable tasks"
                    + " are off");
        }
    }
}
