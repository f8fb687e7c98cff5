package io.timedjobs.benchmarks.startup.apps;

import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Spring Boot configuration, read by Boot only; the application of a child JVM of the STARTUP
 * benchmark: Boot's scheduler with ShedLock's Spring integration, as its README sets it up: {@code
 * @EnableSchedulerLock}, the JDBC template lock provider on the database's time, the one job under
 * a lock name. ShedLock has no Boot starter of its own.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "PT10M")
public class ShedLockApp {

    public static void main(String[] args) throws Exception {
        Probe.run(ShedLockApp.class, args);
    }

    @Bean
    LockProvider lockProvider(DataSource dataSource) {
        return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(dataSource))
                .usingDbTime()
                .build());
    }

    @Bean
    DailyJob dailyJob() {
        return new DailyJob();
    }

    /** The one job, under its lock. */
    public static class DailyJob {
        @Scheduled(cron = "0 0 3 * * *")
        @SchedulerLock(name = "daily")
        public void run() {}
    }
}
