package io.timedjobs.benchmarks.cluster;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.quartz.CronScheduleBuilder;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

/**
 * Quartz 2.5 in JOB-FIRES, set up as {@link QuartzPeer}: each instance stores every job with a cron
 * trigger every second ({@code * * * * * ?}), replacing what another instance stored (as Spring's
 * {@code SchedulerFactoryBean} does with {@code overwriteExistingJobs}); the cluster fires each once.
 */
final class FiringQuartz implements FiringPeer {

    private @Nullable Scheduler scheduler;

    @Override
    public void createTables(DataSource setup) throws Exception {
        QuartzSetup.createTables(setup);
    }

    @Override
    public void start(DataSource dataSource, String instance, int jobs, Runs runs) throws SchedulerException {
        QuartzWork.reportTo(runs);
        Scheduler started = QuartzSetup.scheduler("fires", instance, dataSource, QuartzSetup.THREADS, false);
        started.scheduleJobs(jobs(jobs, "* * * * * ?", true), true);
        started.start();
        scheduler = started;
    }

    /** {@code count} jobs named job0, job1, ... on {@code cron}, each reporting its runs if {@code report}. */
    static Map<JobDetail, Set<? extends Trigger>> jobs(int count, String cron, boolean report) {
        Map<JobDetail, Set<? extends Trigger>> jobs = new HashMap<>();
        for (int i = 0; i < count; i++) {
            String name = "job" + i;
            JobBuilder job = JobBuilder.newJob(QuartzWork.class).withIdentity(name);
            if (report) {
                job.usingJobData("job", name);
            }
            jobs.put(
                    job.build(),
                    Set.of(TriggerBuilder.newTrigger()
                            .withIdentity(name)
                            .withSchedule(CronScheduleBuilder.cronSchedule(cron))
                            .build()));
        }
        return jobs;
    }

    @Override
    public void close() throws SchedulerException {
        if (scheduler != null) {
            scheduler.shutdown(true);
            scheduler = null;
        }
    }
}
