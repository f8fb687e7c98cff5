package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.DurableView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.FailedTaskView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.InstanceView;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskException;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskInfo;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskQuery;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskState;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: instances and durable tasks as the tables of {@code scheduler-jdbc} hold them. Each
 * view costs three short queries: instances, counts by state, and the first failed tasks.
 */
public final class JdbcClusterReport implements ClusterReport {

    private final ClusterDatabase database;
    private final String instance;
    private final @Nullable DurableTasks durableTasks;

    /**
     * @param database the tables
     * @param instance this instance's name
     * @param durableTasks durable tasks; null when they are off
     */
    public JdbcClusterReport(ClusterDatabase database, String instance, @Nullable DurableTasks durableTasks) {
        this.database = Objects.requireNonNull(database, "database");
        this.instance = Objects.requireNonNull(instance, "instance");
        this.durableTasks = durableTasks;
    }

    @Override
    public ClusterView view() {
        List<InstanceView> instances = database.jdbc()
                .query(
                        "SELECT instance_name, started_at, heartbeat_at FROM "
                                + database.tables().instances() + " ORDER BY instance_name",
                        (rs, row) -> new InstanceView(
                                rs.getString("instance_name"), time(rs, "started_at"), time(rs, "heartbeat_at")));
        DurableTasks tasks = durableTasks;
        return new ClusterView(instance, instances, tasks == null ? null : durable(tasks));
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
    public Map<String, Long> countsByState() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (DurableTaskState state : DurableTaskState.values()) {
            counts.put(state.name(), 0L);
        }
        database.jdbc()
                .query("SELECT state, COUNT(*) AS n FROM " + database.tables().tasks() + " GROUP BY state", rs -> {
                    counts.put(rs.getString("state"), rs.getLong("n"));
                });
        return counts;
    }

    @Override
    public boolean setJobPaused(String job, boolean paused) {
        return database.jdbc()
                        .update(
                                "UPDATE " + database.tables().jobs() + " SET paused = ? WHERE job_name = ?",
                                paused,
                                job)
                == 1;
    }

    @Override
    public Set<String> pausedJobs() {
        return new HashSet<>(database.jdbc()
                .queryForList("SELECT job_name FROM " + database.tables().jobs() + " WHERE paused", String.class));
    }

    private static String time(ResultSet rs, String column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? "" : time.toInstant().toString();
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
