package io.timedjobs.benchmarks.startup.apps;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Spring Boot configuration, read by Boot only; the application of a child JVM of the STARTUP
 * benchmark: the smallest Spring Boot application with one {@code @Scheduled} job (03:00 every day,
 * so it never fires during a start). On Boot's own class path it runs on Boot's scheduler; with
 * Timed Jobs' starter on the class path, on ours (with {@code scheduler-jdbc} and a data source,
 * the job is clustered). No component scan: one bean.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class ScheduledApp {

    public static void main(String[] args) throws Exception {
        Probe.run(ScheduledApp.class, args);
    }

    @Bean
    DailyJob dailyJob() {
        return new DailyJob();
    }

    /** The one job. */
    public static class DailyJob {
        @Scheduled(cron = "0 0 3 * * *")
        public void run() {}
    }
}
