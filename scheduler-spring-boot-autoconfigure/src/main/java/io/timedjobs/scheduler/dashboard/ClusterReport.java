package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterView;
import java.util.Map;

/**
 * Thread-safe: the part of the report that needs {@code scheduler-jdbc}, behind an interface so
 * that the report loads without it on the class path.
 */
public interface ClusterReport {

    /** Failed durable tasks listed at most. */
    int FAILED_LISTED = 20;

    /** Returns instances and durable tasks as the database has them now. */
    ClusterView view();

    /** Returns durable tasks by state, every state listed, in one query. */
    Map<String, Long> countsByState();

    /** Runs a failed durable task again as soon as possible, with its attempts reset. */
    ActionResult retry(String handler, String key);

    /** Removes a durable task in any state. */
    ActionResult cancel(String handler, String key);
}
