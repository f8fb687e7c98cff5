package io.timedjobs.scheduler.dashboard;

import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterJobView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.ClusterView;
import io.timedjobs.scheduler.dashboard.TimedJobsView.HistoryPage;
import io.timedjobs.scheduler.dashboard.TimedJobsView.RunView;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the part of the report that needs {@code scheduler-jdbc}, behind an interface so
 * that the report loads without it on the class path.
 */
public interface ClusterReport {

    /** Failed durable tasks listed at most. */
    int FAILED_LISTED = 20;

    /** Runs listed at most in each job's timeline of the run history. */
    int TIMELINE_LISTED = 10;

    /** Failed runs listed at most from the run history. */
    int FAILURES_LISTED = 20;

    /** Returns instances and durable tasks as the database has them now. */
    ClusterView view();

    /** Returns durable tasks by state, every state listed, in one query. */
    Map<String, Long> countsByState();

    /**
     * Pauses or resumes a clustered job on every instance (its row's {@code paused} flag); returns
     * false if the job has no row yet.
     */
    boolean setJobPaused(String job, boolean paused);

    /** Returns the names of the clustered jobs paused on every instance, in one query. */
    Set<String> pausedJobs();

    /** Runs a failed durable task again as soon as possible, with its attempts reset. */
    ActionResult retry(String handler, String key);

    /** Removes a durable task in any state. */
    ActionResult cancel(String handler, String key);

    /**
     * Returns each clustered job of this instance with what the cluster did with its fires, by job
     * name, in two grouped queries whatever the number of jobs; empty when this report does not know
     * the clustered jobs.
     */
    default Map<String, ClusterJobView> clusteredJobs() {
        return Map.of();
    }

    /** Returns this instance's name as the cluster knows it; null when unknown. */
    default @Nullable String instanceName() {
        return null;
    }

    /**
     * Answers a search of the run history; null when the history is off.
     *
     * @throws IllegalArgumentException for a cursor this report did not give
     */
    default @Nullable HistoryPage search(HistorySearch search) {
        return null;
    }

    /**
     * Returns one record of the run history whole, stack trace included, by its id (a job's or a
     * durable task's); null when the history is off or holds no record of that id.
     */
    default @Nullable RunView record(long id) {
        return null;
    }
}
