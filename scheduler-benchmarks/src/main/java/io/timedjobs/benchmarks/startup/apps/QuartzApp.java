package io.timedjobs.benchmarks.startup.apps;

import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot configuration, read by Boot only; the application of a child JVM of the STARTUP
 * benchmark: Quartz through Spring Boot's own starter, the JDBC job store clustered (the properties
 * come from the parent), the one job a durable job detail and a cron trigger bean, as Boot's
 * reference shows.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class QuartzApp {

    public static void main(String[] args) throws Exception {
        Probe.run(QuartzApp.class, args);
    }

    @Bean
    JobDetail dailyJob() {
        return JobBuilder.newJob(DailyJob.class)
                .withIdentity("daily")
                .storeDurably()
                .build();
    }

    @Bean
    Trigger dailyTrigger(JobDetail dailyJob) {
        return TriggerBuilder.newTrigger()
                .forJob(dailyJob)
                .withIdentity("daily")
                .withSchedule(CronScheduleBuilder.cronSchedule("0 0 3 * * ?"))
                .build();
    }

    /** The one job. */
    public static class DailyJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {}
    }
}
