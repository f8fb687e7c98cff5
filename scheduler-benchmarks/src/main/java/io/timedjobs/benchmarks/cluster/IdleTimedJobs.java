package io.timedjobs.benchmarks.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Ours as an application gets it: a Spring Boot context with the starter's auto-configuration and
 * its defaults, the counting data source as the application's, and {@code jobs} beans each with a
 * {@code @Scheduled} cron method firing at 03:00 every day (clustered, as every job of the default
 * scheduler is). No durable task handler.
 */
final class IdleTimedJobs implements IdlePeer {

    private @Nullable ConfigurableApplicationContext context;

    @Override
    public String name() {
        return "timed-jobs";
    }

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
    public void start(DataSource dataSource, int jobs) {
        context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .properties(Map.of(
                        "timed-jobs.cluster.instance-name", "idle-bench",
                        "timed-jobs.jdbc.initialize-schema", "always",
                        "spring.main.banner-mode", "off"))
                .initializers(app -> {
                    app.getBeanFactory().registerSingleton("benchDataSource", dataSource);
                    for (int i = 0; i < jobs; i++) {
                        app.getBeanFactory().registerSingleton("dailyJob" + i, new DailyJob());
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

    /** A clustered job that never fires in a window: 03:00 every day. */
    static final class DailyJob {
        @Scheduled(cron = "0 0 3 * * *")
        void run() {}
    }
}
