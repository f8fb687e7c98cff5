package io.timedjobs.scheduler.dashboard;

import java.util.Objects;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * Thread-safe: the actuator endpoint {@code timedjobs}. Exposed and secured like any other
 * endpoint, so nothing is visible until the application exposes it.
 *
 * <ul>
 *   <li>{@code GET /actuator/timedjobs}: the {@link TimedJobsView};
 *   <li>{@code POST /actuator/timedjobs/{job}} with {@code {"action": "run" | "pause" | "resume"}};
 *       a clustered job is paused and resumed on every instance;
 *   <li>{@code POST /actuator/timedjobs/{handler}/{key}} with {@code {"action": "retry"}}: a
 *       failed durable task runs again;
 *   <li>{@code DELETE /actuator/timedjobs/{handler}/{key}}: a durable task is cancelled.
 * </ul>
 *
 * <p>Each write answers with an {@link ActionResult}; one whose target does not exist is refused
 * ({@code done: false}) with a message that says so.
 */
@Endpoint(id = "timedjobs")
public class TimedJobsEndpoint {

    private final TimedJobsReport report;

    public TimedJobsEndpoint(TimedJobsReport report) {
        this.report = Objects.requireNonNull(report, "report");
    }

    /** Returns every repeating job, the queue, and with {@code scheduler-jdbc} instances and durable tasks. */
    @ReadOperation
    public TimedJobsView timedJobs() {
        return report.view();
    }

    /** Runs a job now, or pauses or resumes it. */
    @WriteOperation
    public ActionResult job(@Selector String name, String action) {
        return switch (action) {
            case "run" -> report.run(name);
            case "pause" -> report.pause(name);
            case "resume" -> report.resume(name);
            default ->
                ActionResult.refused(
                        action, name, "Unknown action '" + action + "' for a job; use run, pause or resume");
        };
    }

    /** Retries a failed durable task. */
    @WriteOperation
    public ActionResult durableTask(@Selector String handler, @Selector String key, String action) {
        if (!"retry".equals(action)) {
            return ActionResult.refused(
                    action,
                    handler + "/" + key,
                    "Unknown action '" + action + "' for a durable task; use retry, or DELETE to cancel");
        }
        ClusterReport cluster = report.cluster();
        if (cluster == null) {
            return noDurableTasks("retry", handler, key);
        }
        return cluster.retry(handler, key);
    }

    /** Cancels a durable task. */
    @DeleteOperation
    public ActionResult cancel(@Selector String handler, @Selector String key) {
        ClusterReport cluster = report.cluster();
        if (cluster == null) {
            return noDurableTasks("cancel", handler, key);
        }
        return cluster.cancel(handler, key);
    }

    private static ActionResult noDurableTasks(String action, String handler, String key) {
        return ActionResult.refused(
                action, handler + "/" + key, "No durable tasks here: scheduler-jdbc is not in use by this application");
    }
}
