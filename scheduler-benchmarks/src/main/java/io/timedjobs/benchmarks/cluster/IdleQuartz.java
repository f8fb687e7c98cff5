package io.timedjobs.benchmarks.cluster;

import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;

/**
 * Quartz 2.5 in IDLE-LOAD, set up as {@link QuartzPeer} (clustered, so it checks in every 7.5 s, its
 * default, and looks for triggers every 30 s at most, its default idle wait), with {@code jobs} jobs
 * on a daily cron at 03:00.
 */
final class IdleQuartz implements IdlePeer {

    private @Nullable Scheduler scheduler;

    @Override
    public String name() {
        return "quartz clustered";
    }

    @Override
    public void createTables(DataSource setup) throws Exception {
        QuartzSetup.createTables(setup);
    }

    @Override
    public void start(DataSource dataSource, int jobs) throws SchedulerException {
        Scheduler started = QuartzSetup.scheduler("idle", "idle-0", dataSource, QuartzSetup.THREADS, false);
        started.scheduleJobs(FiringQuartz.jobs(jobs, "0 0 3 * * ?", false), true);
        started.start();
        scheduler = started;
    }

    @Override
    public void close() throws SchedulerException {
        if (scheduler != null) {
            scheduler.shutdown(true);
            scheduler = null;
        }
    }
}
