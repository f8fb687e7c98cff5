package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.dashboard.TimedJobsView.JobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.LatenessView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.SchedulerView;
import io.timedjobs.scheduler.spring.JobSnapshot;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.core.task.TaskRejectedException;

/**
 * Thread-safe: builds the {@link TimedJobsView} of one scheduler, and acts on its jobs. The
 * actuator endpoint and the live page both read it, so they always agree.
 */
public final class TimedJobsReport {

    private final LeaderFollowerTaskScheduler scheduler;
    private final String name;
    private final @Nullable Duration latenessThreshold;
    private final @Nullable ClusterReport cluster;

    /**
     * @param scheduler the scheduler to report on
     * @param name its bean name
     * @param latenessThreshold lateness above which it is reported late; null for never
     * @param cluster instances and durable tasks; null without {@code scheduler-jdbc}
     */
    public TimedJobsReport(
            LeaderFollowerTaskScheduler scheduler,
            String name,
            @Nullable Duration latenessThreshold,
            @Nullable ClusterReport cluster) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.name = Objects.requireNonNull(name, "name");
        this.latenessThreshold = latenessThreshold;
        this.cluster = cluster;
    }

    /** Returns the instances and durable tasks part, or null without {@code scheduler-jdbc}. */
    @Nullable
    ClusterReport cluster() {
        return cluster;
    }

    /** Reads everything now. */
    public TimedJobsView view() {
        List<JobView> jobs = new ArrayList<>();
        for (TrackedJob job : scheduler.getJobRegistry().jobs()) {
            jobs.add(job(job.snapshot()));
        }
        ClusterReport clusterReport = cluster;
        return new TimedJobsView(schedulerView(), jobs, clusterReport == null ? null : clusterReport.view());
    }

    private SchedulerView schedulerView() {
        LeaderFollowerScheduler engine = scheduler.getScheduledExecutor();
        long overdueNanos = engine.getOverdue(TimeUnit.NANOSECONDS);
        Duration threshold = latenessThreshold;
        boolean late = threshold != null && overdueNanos > threshold.toNanos();
        String status = engine.isShutdown() ? "DOWN" : scheduler.isRunning() ? "UP" : "PAUSED";
        return new SchedulerView(
                name,
                status,
                late,
                engine.getQueueSize(),
                engine.getActiveCount(),
                engine.getPoolSize(),
                millis(overdueNanos),
                engine.getCompletedTaskCount(),
                engine.getFailedTaskCount());
    }

    private static JobView job(JobSnapshot job) {
        List<Double> recent = new ArrayList<>(job.recentLatenessNanos().length);
        for (long nanos : job.recentLatenessNanos()) {
            recent.add(millis(nanos));
        }
        Outcome outcome = job.lastOutcome();
        return new JobView(
                job.name(),
                job.schedule(),
                job.sharedByInstances(),
                job.paused(),
                iso(job.nextRun()),
                iso(job.lastRun()),
                outcome == null ? null : outcome == Outcome.SUCCEEDED ? "SUCCESS" : "ERROR",
                job.runs() == 0 ? null : millis(job.lastDurationNanos()),
                new LatenessView(
                        millis(job.p50LatenessNanos()),
                        millis(job.p99LatenessNanos()),
                        millis(job.maxLatenessNanos()),
                        recent),
                job.runs(),
                job.failures());
    }

    /** Runs a job once now, beside its schedule. */
    public ActionResult run(String job) {
        Optional<TrackedJob> found = find(job);
        if (found.isEmpty()) {
            return noSuchJob("run", job);
        }
        try {
            scheduler.runNow(found.get());
        } catch (TaskRejectedException shutDown) {
            return ActionResult.refused("run", job, "The scheduler is shut down: " + shutDown.getMessage());
        }
        return ActionResult.done("run", job, "Job '" + job + "' runs now, once; its schedule is unchanged");
    }

    /**
     * Skips a job's runs on this instance until it is resumed. A clustered job's fires are then
     * taken by the other instances.
     */
    public ActionResult pause(String job) {
        Optional<TrackedJob> found = find(job);
        if (found.isEmpty()) {
            return noSuchJob("pause", job);
        }
        found.get().pause();
        String where =
                found.get().isSharedByInstances() ? " on this instance; other instances still take its fires" : "";
        return ActionResult.done(
                "pause", job, "Job '" + job + "' is paused" + where + "; its runs are skipped until resumed");
    }

    /** Runs a paused job again at its next time. */
    public ActionResult resume(String job) {
        Optional<TrackedJob> found = find(job);
        if (found.isEmpty()) {
            return noSuchJob("resume", job);
        }
        found.get().resume();
        return ActionResult.done("resume", job, "Job '" + job + "' runs again from its next time");
    }

    private Optional<TrackedJob> find(String job) {
        return scheduler.getJobRegistry().find(job);
    }

    private ActionResult noSuchJob(String action, String job) {
        List<String> known =
                scheduler.getJobRegistry().jobs().stream().map(TrackedJob::name).toList();
        return ActionResult.refused(action, job, "No repeating job named '" + job + "'; the jobs are " + known);
    }

    static double millis(long nanos) {
        return nanos / 1_000_000.0;
    }

    static @Nullable String iso(@Nullable Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
