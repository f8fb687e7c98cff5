package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.TimedJobsDataSource;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.cluster.FirePlacement;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.InstanceWiring;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskStore;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot auto-configuration, used by Spring only. Several instances on one database: the shared pieces of {@code scheduler-jdbc} (the database
 * and its tables, this instance's registration, the database clock). On when {@code
 * scheduler-jdbc} and a {@link DataSource} are present, off with {@code
 * timed-jobs.cluster.enabled=false}.
 *
 * <p>The data source is the one marked {@link TimedJobsDataSource @TimedJobsDataSource}, else the
 * application's only (or primary) one.
 */
@AutoConfiguration(
        after = SchedulerAutoConfiguration.class,
        afterName = {
            // Spring Boot 4
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({ClusterInstance.class, DataSource.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".cluster", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SchedulerProperties.class)
public class ClusterAutoConfiguration {

    /** Name of the bean that checks or creates the tables, when it is created. */
    public static final String CLUSTER_DATABASE_BEAN_NAME = "timedJobsClusterDatabase";

    /**
     * Beans of Spring Boot's database initializers: Flyway's and Liquibase's migrations and its own
     * SQL scripts. When the application creates the tables with one of them, they must run first.
     */
    static final List<String> DATABASE_INITIALIZER_BEAN_NAMES =
            List.of("flywayInitializer", "liquibase", "dataSourceScriptDatabaseInitializer");

    /** Makes the tables' check wait for the application's own migrations; see {@link #DATABASE_INITIALIZER_BEAN_NAMES}. */
    @Bean
    static BeanFactoryPostProcessor timedJobsAfterDatabaseInitializers() {
        return beanFactory -> {
            if (!beanFactory.containsBeanDefinition(CLUSTER_DATABASE_BEAN_NAME)) {
                return;
            }
            BeanDefinition definition = beanFactory.getBeanDefinition(CLUSTER_DATABASE_BEAN_NAME);
            List<String> dependsOn = new ArrayList<>();
            String[] existing = definition.getDependsOn();
            if (existing != null) {
                dependsOn.addAll(Arrays.asList(existing));
            }
            for (String initializer : DATABASE_INITIALIZER_BEAN_NAMES) {
                if (beanFactory.containsBeanDefinition(initializer) && !dependsOn.contains(initializer)) {
                    dependsOn.add(initializer);
                }
            }
            definition.setDependsOn(dependsOn.toArray(new String[0]));
        };
    }

    @Bean(CLUSTER_DATABASE_BEAN_NAME)
    @ConditionalOnMissingBean
    public ClusterDatabase timedJobsClusterDatabase(
            SchedulerProperties properties,
            @TimedJobsDataSource ObjectProvider<DataSource> qualifiedDataSource,
            ObjectProvider<DataSource> dataSources) {
        DataSource dataSource = qualifiedDataSource.getIfAvailable(dataSources::getIfUnique);
        if (dataSource == null) {
            throw MissingDataSource.ambiguous();
        }
        TableNames tables = new TableNames(properties.getJdbc().getTablePrefix());
        ClusterDatabase database =
                ClusterDatabase.of(dataSource, tables, properties.getCluster().getDatabaseTimeout());
        SchemaInitializer.Mode mode = SchemaInitializer.Mode.valueOf(
                properties.getJdbc().getInitializeSchema().name().toUpperCase(Locale.ROOT));
        new SchemaInitializer(database).initialize(mode);
        return database;
    }

    @Bean
    @ConditionalOnMissingBean
    public DatabaseClock timedJobsDatabaseClock(
            ClusterDatabase database, ObjectProvider<LeaderFollowerTaskScheduler> scheduler) {
        LeaderFollowerTaskScheduler ours = scheduler.getIfUnique();
        Clock clock = ours != null ? ours.getClock() : Clock.systemDefaultZone();
        return InstanceWiring.databaseClock(database, clock);
    }

    @Bean
    @ConditionalOnMissingBean
    public ClusterInstance timedJobsClusterInstance(ClusterDatabase database, SchedulerProperties properties) {
        ClusterProperties cluster = properties.getCluster();
        String name = cluster.getInstanceName();
        return InstanceWiring.instance(
                database,
                name != null ? name : ClusterInstance.defaultName(),
                cluster.getLease(),
                cluster.getPollInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    public ClusterHeartbeat timedJobsClusterHeartbeat(
            ClusterInstance instance, DatabaseClock clock, SchedulerProperties properties) {
        return InstanceWiring.heartbeat(instance, clock, properties.getCluster().getPollInterval());
    }

    /**
     * The run history ({@code timed-jobs.history.*}): written by the clustered jobs and durable
     * tasks at the end of each run, read by the page and the endpoint, and by the application.
     */
    @Bean
    @ConditionalOnMissingBean
    public RunHistory timedJobsRunHistory(ClusterDatabase database, SchedulerProperties properties) {
        HistoryProperties history = properties.getHistory();
        return new RunHistory(
                database, new RunHistorySettings(history.isEnabled(), history.getRetention(), history.getMaxRows()));
    }

    /**
     * Makes the {@code @Scheduled} jobs of our schedulers run once per fire across instances. A
     * job asking for no scheduler is clustered when the default one ({@code taskScheduler}) is
     * ours; one naming a scheduler, when that bean is ours.
     */
    @Bean
    @ConditionalOnMissingBean
    public ClusteredJobs timedJobsClusteredJobs(
            ClusterDatabase database,
            ClusterHeartbeat heartbeat,
            DatabaseClock clock,
            SchedulerProperties properties,
            ConfigurableListableBeanFactory beanFactory,
            RunHistory history) {
        ClusterProperties cluster = properties.getCluster();
        ClusteredJobs jobs = new ClusteredJobs(
                database,
                heartbeat,
                clock,
                cluster.getPollInterval(),
                cluster.getMaxRunTime(),
                cluster.getFireHorizon(),
                history);
        ZoneId zone = cluster.getTimeZone();
        jobs.setDefaultZone(zone != null ? zone : ZoneId.systemDefault());
        jobs.setLocalJobs(Set.copyOf(cluster.getLocalJobs()));
        jobs.setListen(cluster.isListen());
        jobs.setFirePlacement(FirePlacement.valueOf(cluster.getFirePlacement().name()));
        Map<String, CatchUpPolicy.Settings> catchUp = new LinkedHashMap<>();
        cluster.getJobs()
                .forEach((name, job) -> catchUp.put(
                        name,
                        new CatchUpPolicy.Settings(
                                job.getCatchUp().getPolicy(),
                                job.getCatchUp().getWindow(),
                                job.getCatchUp().getMaxFires())));
        jobs.setCatchUpSettings(catchUp);
        jobs.setClusteredQualifier(qualifier -> {
            String name = qualifier.isEmpty() ? SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME : qualifier;
            return beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, LeaderFollowerTaskScheduler.class);
        });
        return jobs;
    }

    /**
     * The cluster's part of the {@code timedJobs} health component: database reachable, jobs this
     * instance refuses, failed durable tasks; see {@link ClusterHealth}.
     */
    @Bean
    @ConditionalOnMissingBean
    ClusterHealth timedJobsClusterHealth(
            ClusteredJobs jobs,
            ClusterHeartbeat heartbeat,
            ClusterDatabase database,
            ObjectProvider<DurableTasks> durableTasks,
            SchedulerProperties properties) {
        DurableTaskStore tasks = new DurableTaskStore(database);
        ClusterProperties cluster = properties.getCluster();
        ClusterHealth health = new ClusterHealth(
                jobs::refusedJobs,
                heartbeat.outages(),
                heartbeat.reach(),
                cluster.getPollInterval(),
                cluster.getDatabaseTimeout(),
                () -> durableTasks.getIfAvailable() == null ? null : tasks.countsByState(),
                System::nanoTime);
        heartbeat.addPollAction(health::refreshFailedTasks); // the count's statement never runs on a caller's thread
        return health;
    }

    /**
     * Tags Spring's {@code tasks.scheduled.execution} observations with the clustered job and its
     * nominal fire, when Micrometer's observation API is there; see {@link ClusteredRunObservationFilter}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationFilter")
    static class ClusteredRunObservationConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "timedJobsClusteredRunObservationFilter")
        io.micrometer.observation.ObservationFilter timedJobsClusteredRunObservationFilter() {
            return new ClusteredRunObservationFilter();
        }
    }

    /** Publishes the {@code scheduler.cluster.*} meters when Micrometer is there; see {@link ClusterMetrics}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".metrics", name = "enabled", matchIfMissing = true)
    static class ClusterMetricsConfiguration {

        @Bean
        SmartInitializingSingleton timedJobsClusterMetrics(
                ObjectProvider<MeterRegistry> registry, ClusteredJobs jobs, DatabaseClock clock) {
            return () -> registry.ifUnique(meters ->
                    ClusterMetrics.bind(meters, SchedulerAutoConfiguration.TASK_SCHEDULER_BEAN_NAME, jobs, clock));
        }
    }
}
