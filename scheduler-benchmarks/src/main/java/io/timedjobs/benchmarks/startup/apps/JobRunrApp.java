package io.timedjobs.benchmarks.startup.apps;

import javax.sql.DataSource;
import org.jobrunr.configuration.JobRunr;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.sql.common.SqlStorageProviderFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot configuration, read by Boot only; the application of a child JVM of the STARTUP
 * benchmark: JobRunr 8.1.0 wired by hand, as its guide for Spring without its Boot starter shows.
 * Maven Central has no {@code jobrunr-spring-boot-4-starter} 8.1.0, and its Boot 3 starter fails on
 * Boot 4.1 (its configuration calls a {@code PropertyMapper} method Boot 4 removed). So: Boot's
 * own data source, a {@code JobScheduler} bean that configures JobRunr on it with a background job
 * server (its defaults: a 15 s poll, Jackson as the JSON mapper), Spring beans as the job
 * activator, and the one job scheduled recurrently on the same cron. No dashboard.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class JobRunrApp {

    public static void main(String[] args) throws Exception {
        Probe.run(JobRunrApp.class, args);
    }

    @Bean
    JobActivator jobActivator(ApplicationContext context) {
        return context::getBean;
    }

    @Bean
    JobScheduler jobScheduler(DataSource dataSource, JobActivator jobActivator) {
        JobScheduler scheduler = JobRunr.configure()
                .useJobActivator(jobActivator)
                .useStorageProvider(SqlStorageProviderFactory.using(dataSource))
                .useBackgroundJobServer()
                .initialize()
                .getJobScheduler();
        scheduler.scheduleRecurrently("daily", "0 3 * * *", () -> DailyJob.run());
        return scheduler;
    }

    /** The one job. */
    public static final class DailyJob {
        private DailyJob() {}

        public static void run() {}
    }
}
