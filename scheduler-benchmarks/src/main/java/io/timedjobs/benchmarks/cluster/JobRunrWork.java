package io.timedjobs.benchmarks.cluster;

import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; the work JobRunr runs in the benchmarks. JobRunr stores a job as a class, a method and
 * its arguments, and calls that method on its workers, so what a run reports to goes through these
 * fields, set by the one peer running at a time in this JVM.
 */
public final class JobRunrWork {

    private static volatile @Nullable Executions executions;
    private static volatile FiringPeer.@Nullable Runs runs;

    private JobRunrWork() {}

    /** Sends the starts of tasks to {@code sink} from now on. */
    static void reportTo(Executions sink) {
        executions = sink;
    }

    /** Sends the runs of recurring jobs to {@code sink} from now on. */
    static void reportTo(FiringPeer.Runs sink) {
        runs = sink;
    }

    /** Task {@code task} of DRAIN or SPREAD starts. */
    public static void start(int task) {
        Executions sink = executions;
        if (sink != null) {
            sink.started(task);
        }
    }

    /** Recurring job {@code job} of JOB-FIRES runs. */
    public static void fire(String job) {
        FiringPeer.Runs sink = runs;
        if (sink != null) {
            sink.ran(job);
        }
    }

    /** A job of IDLE-LOAD, which never runs in its window. */
    public static void idle() {}
}
