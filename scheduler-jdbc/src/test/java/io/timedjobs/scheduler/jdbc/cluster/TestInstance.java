package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * For tests: one instance of an application with clustered jobs, as a plain Spring context on
 * Spring's own {@link ThreadPoolTaskScheduler} (the clustering works with any {@code
 * TaskScheduler}), with polls and leases shrunk.
 */
public final class TestInstance {

    /**
     * Shrunk settings: poll 200 ms, instance lease 5 s (a heartbeat thread starved that long on a
     * busy machine would count as dead), max run time 10 s, horizon 30 s.
     */
    public record Settings(
            Duration pollInterval, Duration lease, Duration maxRunTime, Duration fireHorizon, ZoneId zone) {

        public static Settings shrunk() {
            return new Settings(
                    Duration.ofMillis(200),
                    Duration.ofSeconds(5),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(30),
                    ZoneId.of("UTC"));
        }

        public Settings withZone(ZoneId other) {
            return new Settings(pollInterval, lease, maxRunTime, fireHorizon, other);
        }

        public Settings withMaxRunTime(Duration other) {
            return new Settings(pollInterval, lease, other, fireHorizon, zone);
        }

        public Settings withLease(Duration other) {
            return new Settings(pollInterval, other, maxRunTime, fireHorizon, zone);
        }
    }

    private TestInstance() {}

    /**
     * Starts an instance named {@code name} whose clock is {@code skew} off the real one, with the
     * given job classes as beans, on a database whose tables exist.
     */
    public static AnnotationConfigApplicationContext start(
            DataSource dataSource,
            String name,
            Duration skew,
            Settings settings,
            RunLog runLog,
            Class<?>... jobClasses) {
        return start(dataSource, name, skew, settings, RunHistorySettings.disabled(), runLog, jobClasses);
    }

    /** As {@link #start(DataSource, String, Duration, Settings, RunLog, Class[])}, recording runs by {@code history}. */
    public static AnnotationConfigApplicationContext start(
            DataSource dataSource,
            String name,
            Duration skew,
            Settings settings,
            RunHistorySettings history,
            RunLog runLog,
            Class<?>... jobClasses) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(RunHistorySettings.class, () -> history);
        // Not closed with the context: the instances share it.
        context.registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource));
        context.registerBean(RunLog.class, () -> runLog);
        context.registerBean(Settings.class, () -> settings);
        context.registerBean("instanceName", String.class, () -> name);
        context.registerBean(Clock.class, () -> Clock.offset(Clock.systemUTC(), skew));
        context.register(Infrastructure.class);
        context.register(jobClasses);
        context.refresh();
        return context;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Infrastructure {

        @Bean
        ThreadPoolTaskScheduler taskScheduler(Clock clock) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setPoolSize(4);
            scheduler.setClock(clock);
            scheduler.setWaitForTasksToCompleteOnShutdown(true);
            scheduler.setAwaitTerminationSeconds(20);
            return scheduler;
        }

        @Bean
        ClusterDatabase clusterDatabase(DataSource dataSource) {
            return ClusterDatabase.of(dataSource, TableNames.defaults());
        }

        @Bean
        DatabaseClock databaseClock(ClusterDatabase database, Clock clock) {
            return new DatabaseClock(database.jdbc(), database.dialect(), clock, Ticker.system());
        }

        @Bean
        ClusterHeartbeat clusterHeartbeat(
                ClusterDatabase database, DatabaseClock clock, Settings settings, String instanceName) {
            ClusterInstance instance = new ClusterInstance(
                    database.jdbc(), database.dialect(), database.tables(), instanceName, settings.lease());
            return new ClusterHeartbeat(
                    instance, clock, new OutageLog(ClusterHeartbeat.class, "heartbeat"), settings.pollInterval());
        }

        @Bean
        RunHistory runHistory(ClusterDatabase database, RunHistorySettings settings) {
            return new RunHistory(database, settings);
        }

        @Bean
        ClusteredJobs clusteredJobs(
                ClusterDatabase database,
                ClusterHeartbeat heartbeat,
                DatabaseClock clock,
                Settings settings,
                RunHistory history,
                ObjectProvider<FirePlacement> placement) {
            ClusteredJobs jobs = new ClusteredJobs(
                    database,
                    heartbeat,
                    clock,
                    settings.pollInterval(),
                    settings.maxRunTime(),
                    settings.fireHorizon(),
                    history);
            jobs.setDefaultZone(settings.zone());
            placement.ifAvailable(jobs::setFirePlacement); // a job class may declare one as a bean
            return jobs;
        }
    }
}
