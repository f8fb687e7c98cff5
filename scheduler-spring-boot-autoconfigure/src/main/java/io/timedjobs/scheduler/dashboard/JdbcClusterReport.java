package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.FireSummaries.FireSummary;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterJobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.DurableView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.FailedTaskView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.InstanceView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.JobCounts;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.cluster.JobStore;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance.Registration;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskException;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskInfo;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskQuery;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskStore;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: instances and durable tasks as the tables of {@code scheduler-jdbc} hold them, read
 * and changed through the stores of those tables. Each view costs three short queries: instances,
 * counts by state, and the first failed tasks; with the run history two more, the timelines of all
 * jobs in one and the last failures; the clustered jobs' part three more (four while a job has
 * skips among its kept fires): paused jobs and the {@link FireSummaries}. None of them is one per
 * job.
 */
public final class JdbcClusterReport implements ClusterReport {

    private final ClusterInstance instance;
    private final JobStore jobs;
    private final DurableTaskStore taskTable;
    private final @Nullable DurableTasks durableTasks;
    private final @Nullable ClusteredJobs clusteredJobs;
    private final @Nullable RunHistory history;
    private final ClusterReads reads;
    private final FireSummaries fireSummaries;

    /**
     * @param database the tables
     * @param instance this instance
     * @param durableTasks durable tasks; null when they are off
     */
    public JdbcClusterReport(ClusterDatabase database, ClusterInstance instance, @Nullable DurableTasks durableTasks) {
        this(database, instance, durableTasks, null);
    }

    /**
     * @param database the tables
     * @param instance this instance
     * @param durableTasks durable tasks; null when they are off
     * @param clusteredJobs the clustered jobs of this instance, for {@link #clusteredJobs()}; null
     *     when they are off
     */
    public JdbcClusterReport(
            ClusterDatabase database,
            ClusterInstance instance,
            @Nullable DurableTasks durableTasks,
            @Nullable ClusteredJobs clusteredJobs) {
        this(database, instance, durableTasks, clusteredJobs, null);
    }

    /**
     * @param database the tables
     * @param instance this instance
     * @param durableTasks durable tasks; null when they are off
     * @param clusteredJobs the clustered jobs of this instance; null when they are off
     * @param history the run history, for {@link ClusterView#history()}; null or disabled when it is off
     */
    public JdbcClusterReport(
            ClusterDatabase database,
            ClusterInstance instance,
            @Nullable DurableTasks durableTasks,
            @Nullable ClusteredJobs clusteredJobs,
            @Nullable RunHistory history) {
        Objects.requireNonNull(database, "database");
        this.history = history != null && history.enabled() ? history : null;
        this.clusteredJobs = clusteredJobs;
        this.instance = Objects.requireNonNull(instance, "instance");
        this.jobs = new JobStore(database, instance);
        this.taskTable = new DurableTaskStore(database);
        this.durableTasks = durableTasks;
        this.reads = new ClusterReads(database);
        this.fireSummaries = new FireSummaries(database);
    }

    @Override
    public ClusterView view() {
        List<InstanceView> instances =
                instance.all().stream().map(JdbcClusterReport::view).toList();
        DurableTasks tasks = durableTasks;
        RunHistory runs = history;
        return new ClusterView(
                instance.name(), instances, tasks == null ? null : durable(tasks), runs == null ? null : history(runs));
    }

    /** One query for the timelines of every clustered job of this instance, one for the failures. */
    private HistoryView history(RunHistory runs) {
        ClusteredJobs known = clusteredJobs;
        Map<String, List<RunView>> timelines =
                reads.timelines(known == null ? List.of() : List.copyOf(known.jobNames()), TIMELINE_LISTED);
        List<RunView> failures = runs.find(RunHistoryQuery.all().failures().limit(FAILURES_LISTED)).stream()
                .map(run -> JdbcHistorySearch.view(run, false))
                .toList();
        return new HistoryView(timelines, failures);
    }

    private static InstanceView view(Registration registration) {
        return new InstanceView(registration.name(), time(registration.startedAt()), time(registration.heartbeatAt()));
    }

    private DurableView durable(DurableTasks tasks) {
        Map<String, Long> counts = countsByState();
        List<FailedTaskView> failed =
                tasks.find(DurableTaskQuery.all().state(DurableTaskState.FAILED).limit(FAILED_LISTED)).stream()
                        .map(task -> new FailedTaskView(task.handler(), task.key(), task.attempts(), task.lastError()))
                        .toList();
        return new DurableView(counts, failed);
    }

    @Override
    public String instanceName() {
        return instance.name();
    }

    @Override
    public @Nullable HistoryPage search(HistorySearch search) {
        RunHistory runs = history;
        return runs == null ? null : JdbcHistorySearch.search(runs, search);
    }

    @Override
    public @Nullable RunView record(long id) {
        RunHistory runs = history;
        return runs == null ? null : JdbcHistorySearch.record(runs, id);
    }

    @Override
    public Map<String, Long> countsByState() {
        return taskTable.countsByState();
    }

    @Override
    public boolean setJobPaused(String job, boolean paused) {
        return jobs.setPaused(job, paused);
    }

    @Override
    public Set<String> pausedJobs() {
        return jobs.pausedJobs();
    }

    @Override
    public Map<String, ClusterJobView> clusteredJobs() {
        ClusteredJobs known = clusteredJobs;
        if (known == null) {
            return Map.of();
        }
        Map<String, FireSummary> fires = fireSummaries.read();
        Map<String, String> refused = known.refusedJobs();
        ClusterJobStats stats = known.stats();
        Map<String, ClusterJobView> views = new LinkedHashMap<>();
        for (String job : known.jobNames()) {
            FireSummary summary = fires.get(job);
            JobCounts counts = stats.job(job);
            Map<String, Long> skipped = new LinkedHashMap<>();
            counts.skipped().forEach((reason, count) -> skipped.put(reason.name(), count));
            Instant lastRun = summary == null ? null : summary.lastRunAt();
            views.put(
                    job,
                    new ClusterJobView(
                            summary == null ? 0 : summary.ran(),
                            counts.won(),
                            skipped,
                            lastRun == null ? null : lastRun.toString(),
                            lastRun == null ? null : summary.lastRunBy(),
                            refused.get(job),
                            Map.of(
                                    "PAUSED",
                                    summary == null ? 0L : summary.paused(),
                                    "STILL_RUNNING",
                                    summary == null ? 0L : summary.stillRunning(),
                                    "STOPPING",
                                    summary == null ? 0L : summary.stopping())));
        }
        return views;
    }

    private static String time(@Nullable Instant time) {
        return time == null ? "" : time.toString();
    }

    @Override
    public ActionResult retry(String handler, String key) {
        String target = handler + "/" + key;
        DurableTasks tasks = durableTasks;
        if (tasks == null) {
            return ActionResult.refused("retry", target, "Durable tasks are off on this instance");
        }
        Optional<DurableTaskInfo> task = tasks.find(handler, key);
        if (task.isEmpty()) {
            return ActionResult.refused("retry", target, "No durable task " + target);
        }
        if (task.get().state() != DurableTaskState.FAILED) {
            return ActionResult.refused(
                    "retry",
                    target,
                    "Durable task " + target + " is " + task.get().state() + ", not FAILED");
        }
        try {
            if (!tasks.reschedule(handler, key, Duration.ZERO)) {
                return ActionResult.refused("retry", target, "Durable task " + target + " was removed meanwhile");
            }
        } catch (IllegalArgumentException | DurableTaskException e) {
            return ActionResult.refused("retry", target, e.getMessage());
        }
        return ActionResult.done("retry", target, "Durable task " + target + " is due now, with its attempts reset");
    }

    @Override
    public ActionResult cancel(String handler, String key) {
        String target = handler + "/" + key;
        DurableTasks tasks = durableTasks;
        if (tasks == null) {
            return ActionResult.refused("cancel", target, "Durable tasks are off on this instance");
        }
        try {
            if (!tasks.cancel(handler, key)) {
                return ActionResult.refused("cancel", target, "No durable task " + target);
            }
        } catch (IllegalArgumentException | DurableTaskException e) {
            return ActionResult.refused("cancel", target, e.getMessage());
        }
        return ActionResult.done("cancel", target, "Durable task " + target + " is cancelled");
    }
}
