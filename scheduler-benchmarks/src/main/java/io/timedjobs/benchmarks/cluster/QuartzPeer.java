package io.timedjobs.benchmarks.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

/**
 * Quartz 2.5 clustered on PostgreSQL: one scheduler per instance, set up by {@link QuartzSetup}
 * ({@value QuartzSetup#THREADS} threads, batch acquisition of as many triggers under the lock).
 * Each task is a job with a one-shot simple trigger at its instant, misfires firing at once; all are
 * stored in one call, in one transaction. Quartz's triggers keep milliseconds, and a trigger is
 * fired when its instant comes (no fire-ahead window). Used by the benchmark thread only.
 */
final class QuartzPeer implements ClusterPeer {

    private final List<Scheduler> schedulers = new ArrayList<>();

    @Override
    public String name() {
        return "quartz clustered";
    }

    @Override
    public void createTables(DataSource dataSource) throws Exception {
        QuartzSetup.createTables(dataSource);
    }

    @Override
    public void startInstances(List<DataSource> instances, int firstNumber, Executions executions)
            throws SchedulerException {
        QuartzWork.reportTo(executions);
        for (DataSource dataSource : instances) {
            schedulers.add(QuartzSetup.scheduler(
                    "bench", "instance-" + (firstNumber + schedulers.size()), dataSource, QuartzSetup.THREADS, true));
        }
    }

    @Override
    public void scheduleAll(Instant[] due) throws SchedulerException {
        Map<JobDetail, Set<? extends Trigger>> jobs = new HashMap<>();
        for (int i = 0; i < due.length; i++) {
            JobDetail job = JobBuilder.newJob(QuartzWork.class)
                    .withIdentity("task-" + i)
                    .usingJobData("task", i)
                    .build();
            Trigger trigger = TriggerBuilder.newTrigger()
                    .withIdentity("task-" + i)
                    .startAt(Date.from(due[i]))
                    .withSchedule(SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
                    .build();
            jobs.put(job, Set.of(trigger));
        }
        schedulers.get(0).scheduleJobs(jobs, false);
    }

    @Override
    public void close() throws SchedulerException {
        for (Scheduler scheduler : schedulers) {
            scheduler.shutdown(true);
        }
        schedulers.clear();
    }
}
