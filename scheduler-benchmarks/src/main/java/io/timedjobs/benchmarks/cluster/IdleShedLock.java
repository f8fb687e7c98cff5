package io.timedjobs.benchmarks.cluster;

import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * ShedLock at its defaults, as its documentation sets it up: Spring's scheduling with {@code
 * @SchedulerLock} on each of {@code jobs} beans' {@code @Scheduled} cron method (03:00 every day) and
 * the JDBC template lock provider on the database's time. It touches the database only when a job
 * fires, so it is the floor of this scenario.
 */
final class IdleShedLock implements IdlePeer {

    private @Nullable AnnotationConfigApplicationContext context;

    @Override
    public String name() {
        return "shedlock";
    }

    @Override
    public void createTables(DataSource setup) throws Exception {
        try (Connection c = setup.getConnection();
                Statement s = c.createStatement()) {
            s.execute("drop table if exists shedlock");
            s.execute("create table shedlock (name varchar(64) not null, lock_until timestamp not null,"
                    + " locked_at timestamp not null, locked_by varchar(255) not null, primary key (name))");
        }
    }

    @Override
    public void start(DataSource dataSource, int jobs) {
        AnnotationConfigApplicationContext started = new AnnotationConfigApplicationContext();
        started.getBeanFactory().registerSingleton("benchDataSource", dataSource);
        started.register(App.class);
        for (int i = 0; i < jobs; i++) {
            started.registerBean("dailyJob" + i, DailyJob.class);
        }
        started.refresh();
        context = started;
    }

    @Override
    public void close() {
        if (context != null) {
            context.close();
            context = null;
        }
    }

    /** Scheduling with ShedLock's locks. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT10M")
    static class App {
        @Bean
        LockProvider lockProvider(DataSource benchDataSource) {
            return new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new org.springframework.jdbc.core.JdbcTemplate(benchDataSource))
                    .usingDbTime()
                    .build());
        }
    }

    /** A job that never fires in a window: 03:00 every day, under one lock name (none is ever taken). */
    public static class DailyJob {
        @Scheduled(cron = "0 0 3 * * *")
        @SchedulerLock(name = "daily")
        public void run() {}
    }
}
