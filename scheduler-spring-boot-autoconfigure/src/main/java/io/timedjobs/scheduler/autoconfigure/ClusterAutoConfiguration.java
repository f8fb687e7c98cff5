package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.ClusterInstance;
import io.timedjobs.scheduler.jdbc.DatabaseClock;
import io.timedjobs.scheduler.jdbc.OutageLog;
import io.timedjobs.scheduler.jdbc.SchemaInitializer;
import io.timedjobs.scheduler.jdbc.TableNames;
import io.timedjobs.scheduler.jdbc.TimedJobsDataSource;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Clock;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Several instances on one database: the shared pieces of {@code scheduler-jdbc} (the database
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
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
        })
@ConditionalOnClass({ClusterInstance.class, DataSource.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".cluster", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SchedulerProperties.class)
public class ClusterAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public ClusterDatabase timedJobsClusterDatabase(
            SchedulerProperties properties,
            @TimedJobsDataSource ObjectProvider<DataSource> qualifiedDataSource,
            ObjectProvider<DataSource> dataSources) {
        DataSource dataSource = qualifiedDataSource.getIfAvailable(dataSources::getIfUnique);
        if (dataSource == null) {
            throw new IllegalStateException("Timed Jobs found several DataSources and none is primary: mark the one"
                    + " for its tables with @TimedJobsDataSource, or set " + SchedulerProperties.PREFIX
                    + ".cluster.enabled=false");
        }
        TableNames tables = new TableNames(properties.getJdbc().getTablePrefix());
        ClusterDatabase database = ClusterDatabase.of(dataSource, tables);
        SchemaInitializer.Mode mode = SchemaInitializer.Mode.valueOf(
                properties.getJdbc().getInitializeSchema().name().toUpperCase(Locale.ROOT));
        database.schemaInitializer().initialize(mode);
        return database;
    }

    @Bean
    @ConditionalOnMissingBean
    public DatabaseClock timedJobsDatabaseClock(
            ClusterDatabase database, ObjectProvider<LeaderFollowerTaskScheduler> scheduler) {
        LeaderFollowerTaskScheduler ours = scheduler.getIfUnique();
        Clock clock = ours != null ? ours.getClock() : Clock.systemDefaultZone();
        return new DatabaseClock(database.jdbc(), database.dialect(), clock, Ticker.system());
    }

    @Bean
    @ConditionalOnMissingBean
    public ClusterInstance timedJobsClusterInstance(ClusterDatabase database, SchedulerProperties properties) {
        SchedulerProperties.Cluster cluster = properties.getCluster();
        String name = cluster.getInstanceName();
        return new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                name != null ? name : ClusterInstance.defaultName(),
                cluster.getLease());
    }

    @Bean
    @ConditionalOnMissingBean
    public ClusterHeartbeat timedJobsClusterHeartbeat(
            ClusterInstance instance, DatabaseClock clock, SchedulerProperties properties) {
        return new ClusterHeartbeat(
                instance,
                clock,
                new OutageLog(ClusterHeartbeat.class, "the heartbeat of instance " + instance.name()),
                properties.getCluster().getPollInterval());
    }
}
