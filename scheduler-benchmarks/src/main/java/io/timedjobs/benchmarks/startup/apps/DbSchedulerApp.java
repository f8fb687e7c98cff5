package io.timedjobs.benchmarks.startup.apps;

import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot configuration, read by Boot only; the application of a child JVM of the STARTUP
 * benchmark: db-scheduler through its Spring Boot starter at its defaults, the one job a recurring
 * task bean on the same cron (the starter starts the scheduler with every task bean). On Boot 4 the
 * starter's configuration backs off when Boot makes the data source: it orders itself after Boot
 * 3's {@code DataSourceAutoConfiguration}, a class Boot 4 moved, so it is evaluated before the data
 * source exists. The application therefore declares its data source itself (a Hikari pool on {@code
 * spring.datasource.url}, as Boot would make it), which an application's own beans always precede
 * auto-configuration with; the rest is the starter's.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class DbSchedulerApp {

    public static void main(String[] args) throws Exception {
        Probe.run(DbSchedulerApp.class, args);
    }

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(@Value("${spring.datasource.url}") String url) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        return pool;
    }

    @Bean
    RecurringTask<Void> dailyJob() {
        return Tasks.recurring("daily", Schedules.cron("0 0 3 * * *")).execute((instance, context) -> {});
    }
}
