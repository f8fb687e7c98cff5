package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Any thread, each its own: which clustered run is under way on the calling thread, set by {@link
 * ClusteredJob} around its task and read through {@link ClusteredJobs#currentFire()} and its
 * siblings, so that the task (and what observes it) knows the fire it runs without a parameter.
 * {@link ClusteredRunAccessor} hands it to Micrometer's context propagation, so that Reactor can
 * restore it on the threads of a reactive job's operators.
 */
final class CurrentClusteredRun {

    /**
     * One clustered run under way.
     *
     * @param job the clustered job's name
     * @param fire the nominal fire (database time)
     * @param missed whether the run catches up a missed fire
     */
    record Run(String job, Instant fire, boolean missed) {}

    /** The clustered run under way on this thread, or null. */
    private static final ThreadLocal<Run> CURRENT = new ThreadLocal<>();

    private CurrentClusteredRun() {}

    /** Returns the clustered run under way on this thread, or null. */
    static @Nullable Run current() {
        return CURRENT.get();
    }

    /** Makes a run the one under way on this thread (null: none); for context propagation. */
    static void set(@Nullable Run run) {
        if (run == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(run);
        }
    }

    /** Returns the nominal fire (database time) of the clustered run under way on this thread, or null. */
    static @Nullable Instant fire() {
        Run run = CURRENT.get();
        return run == null ? null : run.fire();
    }

    /** Returns the name of the clustered job running on this thread, or null. */
    static @Nullable String job() {
        Run run = CURRENT.get();
        return run == null ? null : run.job();
    }

    /** Returns whether the clustered run under way on this thread catches up a missed fire. */
    static boolean missed() {
        Run run = CURRENT.get();
        return run != null && run.missed();
    }

    /**
     * Runs the job's task on this thread as the run of {@code fire}, and forgets it afterwards, so
     * that a pooled thread carries nothing into its next task.
     */
    static void run(String job, Instant fire, boolean missed, Runnable task) {
        CURRENT.set(new Run(Objects.requireNonNull(job, "job"), Objects.requireNonNull(fire, "fire"), missed));
        try {
            task.run();
        } finally {
            CURRENT.remove();
        }
    }
}
