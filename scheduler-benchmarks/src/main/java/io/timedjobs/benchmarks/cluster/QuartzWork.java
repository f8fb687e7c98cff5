package io.timedjobs.benchmarks.cluster;

import org.jspecify.annotations.Nullable;
import org.quartz.Job;
import org.quartz.JobExecutionContext;

/**
 * Thread-safe; the job Quartz runs in the benchmarks. Quartz makes a new instance of its job class
 * per run, so what a run reports to goes through these fields, set by the one peer running at a time
 * in this JVM. A run with a {@code task} in its data is a task of DRAIN or SPREAD; one with a
 * {@code job} a recurring job of JOB-FIRES; IDLE-LOAD's jobs never run in its window.
 */
public final class QuartzWork implements Job {

    private static volatile @Nullable Executions executions;
    private static volatile FiringPeer.@Nullable Runs runs;

    /** Sends the starts of tasks to {@code sink} from now on. */
    static void reportTo(Executions sink) {
        executions = sink;
    }

    /** Sends the runs of recurring jobs to {@code sink} from now on. */
    static void reportTo(FiringPeer.Runs sink) {
        runs = sink;
    }

    @Override
    public void execute(JobExecutionContext context) {
        var data = context.getMergedJobDataMap();
        if (data.containsKey("task")) {
            Executions sink = executions;
            if (sink != null) {
                sink.started(data.getInt("task"));
            }
        } else if (data.containsKey("job")) {
            FiringPeer.Runs sink = runs;
            if (sink != null) {
                sink.ran(data.getString("job"));
            }
        }
    }
}
