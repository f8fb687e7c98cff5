package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterJobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.JobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.LatenessView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.SchedulerView;
import io.timedjobs.scheduler.spring.JobSnapshot;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.core.task.TaskRejectedException;

/**
 * Thread-safe: builds the {@link TimedJobsView} of one scheduler, and acts on its jobs. The
 * actuator endpoint and the live page both read it, so they always agree.
 */
public final class TimedJobsReport {

    /** The instance named in local fates when no cluster names this one. */
    static final String LOCAL_INSTANCE = "local";

    private final LeaderFollowerTaskScheduler scheduler;
    private final String name;
    private final @Nullable Duration latenessThreshold;
    private final @Nullable ClusterReport cluster;
    private final @Nullable ClusterReadCache clusterReads;

    /** How long one reading of the database serves every page and the endpoint by default. */
    public static final Duration CLUSTER_READ_KEPT = Duration.ofSeconds(1);

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
        this(scheduler, name, latenessThreshold, cluster, CLUSTER_READ_KEPT);
    }

    /**
     * @param scheduler the scheduler to report on
     * @param name its bean name
     * @param latenessThreshold lateness above which it is reported late; null for never
     * @param cluster instances and durable tasks; null without {@code scheduler-jdbc}
     * @param clusterReadKept how long one reading of the database serves every reader of the view
     *     (zero: each view reads it)
     * @throws IllegalArgumentException if {@code clusterReadKept} is negative
     */
    public TimedJobsReport(
            LeaderFollowerTaskScheduler scheduler,
            String name,
            @Nullable Duration latenessThreshold,
            @Nullable ClusterReport cluster,
            Duration clusterReadKept) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.name = Objects.requireNonNull(name, "name");
        this.latenessThreshold = latenessThreshold;
        this.cluster = cluster;
        this.clusterReads = cluster == null
                ? null
                : new ClusterReadCache(
                        cluster, Objects.requireNonNull(clusterReadKept, "clusterReadKept"), System::nanoTime);
    }

    /** Returns the instances and durable tasks part, or null without {@code scheduler-jdbc}. */
    @Nullable
    ClusterReport cluster() {
        return cluster;
    }

    /**
     * Reads the jobs now, and the database's part as one reading shared by every reader for a
     * second at most (see the constructor).
     */
    public TimedJobsView view() {
        ClusterReadCache reads = clusterReads;
        List<TrackedJob> tracked = scheduler.getJobRegistry().jobs();
        boolean anyClustered = reads != null && tracked.stream().anyMatch(TrackedJob::isSharedByInstances);
        // Read here, when the view is asked for, never on a timer: a few queries for all jobs.
        ClusterReadCache.Reading reading = reads == null ? null : reads.read(anyClustered);
        Set<String> pausedEverywhere = reading == null ? Set.of() : reading.pausedEverywhere();
        Map<String, ClusterJobView> clustered = reading == null ? Map.of() : reading.clustered();
        List<JobView> jobs = new ArrayList<>();
        for (TrackedJob job : tracked) {
            JobSnapshot snapshot = job.snapshot();
            boolean paused =
                    snapshot.paused() || (snapshot.sharedByInstances() && pausedEverywhere.contains(snapshot.name()));
            jobs.add(job(snapshot, paused, snapshot.sharedByInstances() ? clustered.get(snapshot.name()) : null));
        }
        return new TimedJobsView(schedulerView(), jobs, reading == null ? null : reading.view());
    }

    /** Makes the next view read the database anew, after a change made through this report. */
    void changed() {
        ClusterReadCache reads = clusterReads;
        if (reads != null) {
            reads.forget();
        }
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

    /**
     * @param cluster what the cluster did with the job's fires; null for a job that is not clustered
     *     or unknown to the cluster report
     */
    private static JobView job(JobSnapshot job, boolean paused, @Nullable ClusterJobView cluster) {
        List<Double> recent = new ArrayList<>(job.recentLatenessNanos().length);
        for (long nanos : job.recentLatenessNanos()) {
            recent.add(millis(nanos));
        }
        Outcome outcome = job.lastOutcome();
        return new JobView(
                job.name(),
                job.schedule(),
                job.sharedByInstances(),
                paused,
                // A job refused here only wakes up to look at the cluster again: it has no next run here.
                cluster != null && cluster.refused() != null ? null : iso(job.nextRun()),
                iso(job.lastRun()),
                outcome == null ? null : outcome == Outcome.SUCCEEDED ? "SUCCESS" : "ERROR",
                job.runs() == 0 ? null : millis(job.lastDurationNanos()),
                new LatenessView(
                        millis(job.p50LatenessNanos()),
                        millis(job.p99LatenessNanos()),
                        millis(job.maxLatenessNanos()),
                        recent),
                // A clustered job's scheduler runs it for every fire it tries; only those it won ran.
                cluster == null ? job.runs() : cluster.runsHere(),
                job.failures(),
                cluster);
    }

    /**
     * Answers a search of the fates of fires: from the run history in the database for clustered
     * jobs and durable tasks, from this instance's memory for a local job (named by {@code job}) or
     * when there is no run history.
     *
     * @throws IllegalArgumentException for a cursor this report did not give
     */
    public HistoryPage search(HistorySearch search) {
        List<TrackedJob> local = scheduler.getJobRegistry().jobs().stream()
                .filter(job -> !job.isSharedByInstances())
                .toList();
        ClusterReport clusterReport = cluster;
        String job = search.job();
        boolean localJob =
                job != null && local.stream().anyMatch(tracked -> tracked.name().equals(job));
        if (clusterReport != null && !localJob) {
            HistoryPage page = clusterReport.search(search);
            if (page != null) {
                return page;
            }
        }
        String instance = clusterReport == null ? null : clusterReport.instanceName();
        return LocalFates.search(local, instance == null ? LOCAL_INSTANCE : instance, search);
    }

    /**
     * Opens one record whole, stack trace included, by its id ({@link RunView#id()}): {@code C} and
     * a number for the run history (a job's or a durable task's record), {@code L} and a number for
     * this instance's memory (a local job's fate).
     *
     * @return a page of that one record; null when no record has that id
     * @throws IllegalArgumentException for an id of neither form
     */
    public @Nullable HistoryPage record(String id) {
        long number = recordNumber(id);
        ClusterReport clusterReport = cluster;
        if (id.charAt(0) == 'C') {
            RunView found = clusterReport == null ? null : clusterReport.record(number);
            return found == null ? null : new HistoryPage(JdbcHistorySearch.SOURCE, List.of(found), null);
        }
        List<TrackedJob> local = scheduler.getJobRegistry().jobs().stream()
                .filter(job -> !job.isSharedByInstances())
                .toList();
        String instance = clusterReport == null ? null : clusterReport.instanceName();
        RunView found = LocalFates.record(local, instance == null ? LOCAL_INSTANCE : instance, number);
        return found == null ? null : new HistoryPage(LocalFates.SOURCE, List.of(found), null);
    }

    private static long recordNumber(String id) {
        if (id.length() > 1 && (id.charAt(0) == 'C' || id.charAt(0) == 'L')) {
            try {
                long number = Long.parseLong(id.substring(1));
                if (number >= 1) {
                    return number;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
        }
        throw new IllegalArgumentException("id '" + id
                + "' is not a record's id: C and a number for the run history, L and a number for this"
                + " instance's memory, as a record's \"id\" gives it");
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
     * Skips a job's runs until it is resumed. A clustered job is paused on every instance: the flag
     * in its row makes each of them skip its fires.
     */
    public ActionResult pause(String job) {
        Optional<TrackedJob> found = find(job);
        if (found.isEmpty()) {
            return noSuchJob("pause", job);
        }
        ClusterReport clusterReport = cluster;
        if (found.get().isSharedByInstances() && clusterReport != null) {
            if (!clusterReport.setJobPaused(job, true)) {
                return notRegistered("pause", job);
            }
            changed();
            return ActionResult.done(
                    "pause", job, "Job '" + job + "' is paused on every instance; its runs are skipped until resumed");
        }
        found.get().pause();
        return ActionResult.done("pause", job, "Job '" + job + "' is paused; its runs are skipped until resumed");
    }

    /** Runs a paused job again at its next time; a clustered job on every instance. */
    public ActionResult resume(String job) {
        Optional<TrackedJob> found = find(job);
        if (found.isEmpty()) {
            return noSuchJob("resume", job);
        }
        ClusterReport clusterReport = cluster;
        if (found.get().isSharedByInstances() && clusterReport != null) {
            if (!clusterReport.setJobPaused(job, false)) {
                return notRegistered("resume", job);
            }
            changed();
            found.get().resume();
            return ActionResult.done(
                    "resume", job, "Job '" + job + "' runs again on every instance from its next time");
        }
        found.get().resume();
        return ActionResult.done("resume", job, "Job '" + job + "' runs again from its next time");
    }

    private static ActionResult notRegistered(String action, String job) {
        return ActionResult.refused(
                action, job, "Clustered job '" + job + "' has no row in the database yet; try again shortly");
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
