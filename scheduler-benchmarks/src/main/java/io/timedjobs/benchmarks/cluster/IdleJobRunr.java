package io.timedjobs.benchmarks.cluster;

import javax.sql.DataSource;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.scheduling.RecurringJobBuilder;
import org.jobrunr.server.BackgroundJobServer;
import org.jspecify.annotations.Nullable;

/**
 * JobRunr 8.1 in IDLE-LOAD, set up as {@link JobRunrPeer} (a server polling every 5 s; its default
 * 15 s would send a third of the statements), with {@code jobs} recurring jobs on a daily cron at 03:00.
 */
final class IdleJobRunr implements IdlePeer {

    private @Nullable BackgroundJobServer server;

    @Override
    public String name() {
        return "jobrunr poll 5 s";
    }

    @Override
    public void createTables(DataSource setup) throws Exception {
        new JobRunrPeer().createTables(setup);
    }

    @Override
    public void start(DataSource dataSource, int jobs) {
        var storage = JobRunrPeer.storage(dataSource);
        JobScheduler scheduler = new JobScheduler(storage);
        for (int i = 0; i < jobs; i++) {
            scheduler.createRecurrently(RecurringJobBuilder.aRecurringJob()
                    .withId("daily-" + i)
                    .withCron("0 3 * * *")
                    .withDetails(() -> JobRunrWork.idle()));
        }
        server = JobRunrPeer.startServer(storage, "jobrunr-idle", JobRunrPeer.WORKERS);
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop();
            server.getStorageProvider().close();
            server = null;
        }
    }
}
