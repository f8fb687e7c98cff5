package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.dashboard.ClusterReport;
import io.timedjobs.scheduler.dashboard.DashboardRoutes;
import io.timedjobs.scheduler.dashboard.JdbcClusterReport;
import io.timedjobs.scheduler.dashboard.TimedJobsEndpoint;
import io.timedjobs.scheduler.dashboard.TimedJobsReport;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Spring Boot auto-configuration, used by Spring only. What an operator sees of the jobs: the
 * report both views read, the actuator endpoint {@code timedjobs} (when actuator is present; exposed
 * by the application's own {@code management.endpoints} settings), and the live page at {@code
 * /timed-jobs} (servlet web applications with {@code timed-jobs.dashboard.enabled=true}).
 */
@AutoConfiguration(
        after = {SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class, DurableTaskAutoConfiguration.class})
@ConditionalOnBean(LeaderFollowerTaskScheduler.class)
@EnableConfigurationProperties(SchedulerProperties.class)
public class TimedJobsDashboardAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public TimedJobsReport timedJobsReport(
            Map<String, LeaderFollowerTaskScheduler> schedulers,
            SchedulerProperties properties,
            ObjectProvider<ClusterReport> cluster) {
        String name = schedulers.containsKey(SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME)
                ? SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME
                : schedulers.keySet().iterator().next();
        return new TimedJobsReport(
                schedulers.get(name), name, properties.getHealth().getLatenessThreshold(), cluster.getIfAvailable());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ClusterDatabase.class)
    @ConditionalOnBean({ClusterDatabase.class, ClusterInstance.class})
    static class ClusterReportConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ClusterReport timedJobsClusterReport(
                ClusterDatabase database,
                ClusterInstance instance,
                ObjectProvider<DurableTasks> durableTasks,
                ObjectProvider<ClusteredJobs> clusteredJobs,
                ObjectProvider<RunHistory> history) {
            return new JdbcClusterReport(
                    database,
                    instance,
                    durableTasks.getIfAvailable(),
                    clusteredJobs.getIfUnique(),
                    history.getIfUnique());
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
        @ConditionalOnBean(DurableTasks.class)
        @ConditionalOnProperty(
                prefix = SchedulerProperties.PREFIX + ".metrics",
                name = "enabled",
                matchIfMissing = true)
        static class DurableStateMetricsConfiguration {

            @Bean
            DurableTaskStateMetrics durableTaskStateMetrics(ClusterReport report) {
                return new DurableTaskStateMetrics(report, System::nanoTime);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        TimedJobsEndpoint timedJobsEndpoint(TimedJobsReport report) {
            return new TimedJobsEndpoint(report);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(RouterFunction.class)
    @ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".dashboard", name = "enabled", havingValue = "true")
    static class PageConfiguration {

        @Bean
        RouterFunction<ServerResponse> timedJobsDashboardRoutes(TimedJobsReport report) {
            return DashboardRoutes.routes(report);
        }
    }
}
