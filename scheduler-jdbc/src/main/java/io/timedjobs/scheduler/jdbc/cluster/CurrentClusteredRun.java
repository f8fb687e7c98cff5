package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Any thread, each its own: which clustered run is under way on the calling thread, set by {@link
 * ClusteredJob} around its task and read through {@link ClusteredJobs#currentFire()} and its
 * siblings, so that the task (and what observes it) knows the fire it runs without a parameter.
 */
final class CurrentClusteredRun {

    /** Nominal fire of the clustered run under way on this thread; see {@link #fire()}. */
    private static final ThreadLocal<Instant> CURRENT_FIRE = new ThreadLocal<>();

    /** Name of the clustered job running on this thread; see {@link #job()}. */
    private static final ThreadLocal<String> CURRENT_JOB = new ThreadLocal<>();

    /** Whether the clustered run under way on this thread catches up a missed fire. */
    private static final ThreadLocal<Boolean> CATCHING_UP = new ThreadLocal<>();

    private CurrentClusteredRun() {}

    /** Returns the nominal fire (database time) of the clustered run under way on this thread, or null. */
    static @Nullable Instant fire() {
        return CURRENT_FIRE.get();
    }

    /** Returns the name of the clustered job running on this thread, or null. */
    static @Nullable String job() {
        return CURRENT_JOB.get();
    }

    /** Returns whether the clustered run under way on this thread catches up a missed fire. */
    static boolean missed() {
        return Boolean.TRUE.equals(CATCHING_UP.get());
    }

    /**
     * Runs the job's task on this thread as the run of {@code fire}, and forgets it afterwards, so
     * that a pooled thread carries nothing into its next task.
     */
    static void run(String job, Instant fire, boolean missed, Runnable task) {
        CURRENT_FIRE.set(fire);
        CURRENT_JOB.set(job);
        CATCHING_UP.set(missed);
        try {
            task.run();
        } finally {
            CURRENT_FIRE.remove();
            CURRENT_JOB.remove();
            CATCHING_UP.remove();
        }
    }
}
