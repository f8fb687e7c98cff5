package io.timedjobs.benchmarks.cluster;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.support.CronTrigger;

/** The peers of JOB-FIRES, each as its documentation sets it up; used by the benchmark thread only. */
final class FiringPeers {

    /** Every second. */
    static final String CRON = "* * * * * *";

    private FiringPeers() {}

    /**
     * Ours as an application gets it: a Spring Boot context with the starter's auto-configuration and
     * its defaults, each job a bean with an {@code @Scheduled} cron method (clustered, as every job of
     * the default scheduler is).
     */
    static final class TimedJobs implements FiringPeer {
        private @Nullable ConfigurableApplicationContext context;

        @Override
        public void createTables(DataSource setup) {
            ClusterDatabase database = ClusterDatabase.of(setup, TableNames.defaults());
            for (String table : java.util.stream.Stream.concat(
                            database.tables().all().stream(),
                            java.util.stream.Stream.of(database.tables().schemaVersion()))
                    .toList()) {
                database.jdbc().execute("drop table if exists " + table);
            }
        }

        @Override
        public void start(DataSource dataSource, String instance, int jobs, Runs runs) {
            context = new SpringApplicationBuilder(App.class)
                    .web(WebApplicationType.NONE)
                    .logStartupInfo(false)
                    .properties(Map.of(
                            "timed-jobs.cluster.instance-name", instance,
                            "timed-jobs.jdbc.initialize-schema", "always",
                            "spring.main.banner-mode", "off"))
                    .initializers(app -> {
                        app.getBeanFactory().registerSingleton("benchDataSource", dataSource);
                        // beans the context creates, so that their @Scheduled methods are found
                        GenericApplicationContext generic = (GenericApplicationContext) app;
                        for (int i = 0; i < jobs; i++) {
                            String name = "job" + i;
                            generic.registerBean(name, SecondJob.class, () -> new SecondJob(name, instance, runs));
                        }
                    })
                    .run();
        }

        @Override
        public void close() {
            if (context != null) {
                context.close();
                context = null;
            }
        }

        /** The application: auto-configuration and scheduling, nothing else. */
        @Configuration(proxyBeanMethods = false)
        @EnableAutoConfiguration
        @EnableScheduling
        static class App {}

        /** A clustered job that fires every second. */
        static final class SecondJob {
            private final String name;
            private final String instance;
            private final Runs runs;

            SecondJob(String name, String instance, Runs runs) {
                this.name = name;
                this.instance = instance;
                this.runs = runs;
            }

            @Scheduled(cron = CRON)
            void run() {
                runs.ran(name, instance);
            }
        }
    }

    /**
     * ShedLock 6 as its documentation sets it up for a cluster: each job on Spring's scheduler, run
     * under a lock of its own name through the JDBC template provider on the database's time, with
     * {@code lockAtLeastFor} 500 ms, which its documentation asks for so that instances whose clocks
     * (or fires) differ a little do not run the same fire again (without it they do).
     */
    static final class ShedLock implements FiringPeer {
        private @Nullable ThreadPoolTaskScheduler scheduler;

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
        public void start(DataSource dataSource, String instance, int jobs, Runs runs) {
            LockingTaskExecutor locks = new DefaultLockingTaskExecutor(
                    new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                            .withJdbcTemplate(new JdbcTemplate(dataSource))
                            .usingDbTime()
                            .build()));
            ThreadPoolTaskScheduler started = new ThreadPoolTaskScheduler();
            started.setPoolSize(10);
            started.setThreadNamePrefix("shedlock-" + instance + "-");
            started.initialize();
            for (int i = 0; i < jobs; i++) {
                String name = "job" + i;
                started.schedule(
                        () -> locks.executeWithLock(
                                (Runnable) () -> runs.ran(name, instance),
                                new LockConfiguration(
                                        Instant.now(), name, Duration.ofMinutes(10), Duration.ofMillis(500))),
                        new CronTrigger(CRON));
            }
            scheduler = started;
        }

        @Override
        public void close() {
            if (scheduler != null) {
                scheduler.shutdown();
                scheduler = null;
            }
        }
    }

    /**
     * db-scheduler at its defaults (10 s polling, its default fetch strategy): each job a recurring
     * task on the cron. It runs what is due at each poll, so each job runs about once per poll, not
     * every second: its runs per fire are below 1 by design.
     */
    static final class DbScheduler implements FiringPeer {
        private @Nullable Scheduler scheduler;

        @Override
        public void createTables(DataSource setup) throws Exception {
            try (Connection c = setup.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("drop table if exists scheduled_tasks");
                s.execute(DbSchedulerPeer.TABLE);
            }
        }

        @Override
        public void start(DataSource dataSource, String instance, int jobs, Runs runs) {
            List<RecurringTask<Void>> tasks = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                String name = "job" + i;
                tasks.add(Tasks.recurring(name, Schedules.cron(CRON))
                        .execute((task, context) -> runs.ran(name, instance)));
            }
            Scheduler started = Scheduler.create(dataSource)
                    .startTasks(tasks)
                    .schedulerName(new SchedulerName.Fixed(instance))
                    .build();
            started.start();
            scheduler = started;
        }

        @Override
        public void close() {
            if (scheduler != null) {
                scheduler.stop();
                scheduler = null;
            }
        }
    }
}
