package io.timedjobs.benchmarks.cluster;

import java.time.Duration;
import javax.sql.DataSource;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.scheduling.RecurringJobBuilder;
import org.jobrunr.server.BackgroundJobServer;
import org.jspecify.annotations.Nullable;

/**
 * JobRunr 8.1 in JOB-FIRES, set up as {@link JobRunrPeer}: each instance registers every job as a
 * recurring job (as its Spring integration does on each instance) and runs a server polling every 5 s.
 * Its SQL storage refuses recurring jobs less than 5 s apart, so each job recurs every {@link
 * #INTERVAL}, not every second: its runs per fire are at most 0.2 by design.
 */
final class FiringJobRunr implements FiringPeer {

    /** The shortest recurrence JobRunr's SQL storage accepts. */
    static final Duration INTERVAL = Duration.ofSeconds(5);

    private @Nullable BackgroundJobServer server;

    @Override
    public void createTables(DataSource setup) throws Exception {
        new JobRunrPeer().createTables(setup);
    }

    @Override
    public void start(DataSource dataSource, String instance, int jobs, Runs runs) {
        JobRunrWork.reportTo(runs);
        var storage = JobRunrPeer.storage(dataSource);
        JobScheduler scheduler = new JobScheduler(storage);
        for (int i = 0; i < jobs; i++) {
            String name = "job" + i;
            scheduler.createRecurrently(RecurringJobBuilder.aRecurringJob()
                    .withId(name)
                    .withInterval(INTERVAL)
                    .withDetails(() -> JobRunrWork.fire(name)));
        }
        server = JobRunrPeer.startServer(storage, "jobrunr-" + instance, JobRunrPeer.WORKERS);
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
