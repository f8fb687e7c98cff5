package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Thread-safe: the actuator endpoint {@code timedjobs}. Exposed and secured like any other
 * endpoint, so nothing is visible until the application exposes it.
 *
 * <ul>
 *   <li>{@code GET /actuator/timedjobs}: the {@link TimedJobsView};
 *   <li>{@code GET /actuator/timedjobs/history?job=&task=&instance=&outcome=&reason=&from=&to=&at=&limit=&cursor=}:
 *       a page of the fates of fires (a {@link HistorySearch}), every parameter optional; a bad
 *       one is refused with status 400 and a message naming it, any other read than {@code
 *       history} with 404;
 *   <li>{@code GET /actuator/timedjobs/history?id=}: one record whole, stack trace included (a
 *       job's or a durable task's), by the {@code id} a page gave it; 404 for an id no record has,
 *       400 for one of no record's form;
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

    /** The selector of the history search. */
    static final String HISTORY = "history";

    private final TimedJobsReport report;

    public TimedJobsEndpoint(TimedJobsReport report) {
        this.report = Objects.requireNonNull(report, "report");
    }

    /** Returns every repeating job, the queue, and with {@code scheduler-jdbc} instances and durable tasks. */
    @ReadOperation
    public TimedJobsView timedJobs() {
        return report.view();
    }

    /**
     * Searches the fates of fires. Boot takes a parameter as optional when it is {@code @Nullable}
     * in Spring's sense: Boot 4 reads any annotation of that simple name, Boot 3 Spring's own, so
     * the parameters carry Spring's.
     */
    @ReadOperation
    @SuppressWarnings("deprecation")
    public WebEndpointResponse<Object> history(
            @Selector String search,
            @org.springframework.lang.Nullable String job,
            @org.springframework.lang.Nullable String task,
            @org.springframework.lang.Nullable String instance,
            @org.springframework.lang.Nullable String outcome,
            @org.springframework.lang.Nullable String reason,
            @org.springframework.lang.Nullable String from,
            @org.springframework.lang.Nullable String to,
            @org.springframework.lang.Nullable String at,
            @org.springframework.lang.Nullable String limit,
            @org.springframework.lang.Nullable String cursor,
            @org.springframework.lang.Nullable String id) {
        if (!HISTORY.equals(search)) {
            return new WebEndpointResponse<>(
                    Map.of(
                            "error",
                            "Unknown read '" + search + "'; GET /actuator/timedjobs or /actuator/timedjobs/" + HISTORY),
                    WebEndpointResponse.STATUS_NOT_FOUND);
        }
        try {
            if (id != null && !id.isBlank()) {
                HistorySearch.requireAlone(id, job, task, instance, outcome, reason, from, to, at, limit, cursor);
                HistoryPage record = report.record(id.strip());
                return record != null
                        ? new WebEndpointResponse<>(record)
                        : new WebEndpointResponse<>(
                                Map.of("error", HistorySearch.noRecord(id.strip())),
                                WebEndpointResponse.STATUS_NOT_FOUND);
            }
            return new WebEndpointResponse<>(report.search(
                    HistorySearch.parse(job, task, instance, outcome, reason, from, to, at, limit, cursor)));
        } catch (IllegalArgumentException e) {
            return refusal(e.getMessage());
        }
    }

    /** A refused read: status 400 and a body that says why, or that no reason was given. */
    static WebEndpointResponse<Object> refusal(@Nullable String message) {
        return new WebEndpointResponse<>(
                Map.of("error", message == null ? "Bad request (no reason given)" : message),
                WebEndpointResponse.STATUS_BAD_REQUEST);
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
        ActionResult result = cluster.retry(handler, key);
        report.changed();
        return result;
    }

    /** Cancels a durable task. */
    @DeleteOperation
    public ActionResult cancel(@Selector String handler, @Selector String key) {
        ClusterReport cluster = report.cluster();
        if (cluster == null) {
            return noDurableTasks("cancel", handler, key);
        }
        ActionResult result = cluster.cancel(handler, key);
        report.changed();
        return result;
    }

    private static ActionResult noDurableTasks(String action, String handler, String key) {
        return ActionResult.refused(
                action, handler + "/" + key, "No durable tasks here: scheduler-jdbc is not in use by this application");
    }
}
