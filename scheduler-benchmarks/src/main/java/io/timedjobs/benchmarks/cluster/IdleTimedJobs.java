package io.timedjobs.benchmarks.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Ours as an application gets it: a Spring Boot context with the starter's auto-configuration and
 * its defaults, the counting data source as the application's, and {@code jobs} beans each with a
 * {@code @Scheduled} cron method firing at 03:00 every day (clustered, as every job of the default
 * scheduler is). Without or with one durable task handler (no task due), and with the handler's
 * instance listening for tasks scheduled elsewhere (the default on PostgreSQL) or polling at every
 * interval ({@code timed-jobs.durable.listen=false}).
 */
final class IdleTimedJobs implements IdlePeer {

    private final boolean handler;
    private final boolean listen;
    private @Nullable ConfigurableApplicationContext context;

    IdleTimedJobs() {
        this(false, true);
    }

    IdleTimedJobs(boolean handler, boolean listen) {
        this.handler = handler;
        this.listen = listen;
    }

    @Override
    public String name() {
        return handler ? (listen ? "timed-jobs+handler" : "timed-jobs+handler-nolisten") : "timed-jobs";
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
                        "timed-jobs.durable.listen", String.valueOf(listen),
                        "spring.main.banner-mode", "off"))
                .initializers(app -> {
                    app.getBeanFactory().registerSingleton("benchDataSource", dataSource);
                    if (handler) {
                        app.getBeanFactory().registerSingleton("note", new NoteHandler());
                    }
                    // beans the context creates, so that their @Scheduled methods are found (a
                    // registered singleton is not post-processed)
                    GenericApplicationContext generic = (GenericApplicationContext) app;
                    for (int i = 0; i < jobs; i++) {
                        generic.registerBean("dailyJob" + i, DailyJob.class, DailyJob::new);
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

    /** A durable task handler with no task to run. */
    static final class NoteHandler implements DurableTaskHandler<String> {
        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {}
    }

    /** A clustered job that never fires in a window: 03:00 every day. */
    static final class DailyJob {
        @Scheduled(cron = "0 0 3 * * *")
        void run() {}
    }
}
