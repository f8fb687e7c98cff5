package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** For tests, thread-safe: every run of every job on every in-JVM instance, in order of start. */
public final class RunLog {

    /** One run: job, nominal fire (null for a local job), instance, and its start and end in nanoTime. */
    public record Run(String job, @Nullable Instant fire, String instance, long startNanos, long endNanos) {}

    private final List<Run> runs = new CopyOnWriteArrayList<>();

    /** Records a run of the calling thread's job, which lasted from startNanos until now. */
    public void record(String job, String instance, long startNanos) {
        runs.add(new Run(job, ClusteredJobs.currentFire(), instance, startNanos, System.nanoTime()));
    }

    public List<Run> runs(String job) {
        return runs.stream().filter(run -> run.job().equals(job)).toList();
    }

    public long count(String job) {
        return runs.stream().filter(run -> run.job().equals(job)).count();
    }

    /** Returns, per nominal fire of the job, how many runs it had. */
    public Map<Instant, Long> runsPerFire(String job) {
        return runs(job).stream()
                .filter(run -> run.fire() != null)
                .collect(Collectors.groupingBy(Run::fire, TreeMap::new, Collectors.counting()));
    }

    /** Returns the nominal fires of the job in order, each once. */
    public List<Instant> fires(String job) {
        return new ArrayList<>(runsPerFire(job).keySet());
    }

    /** Returns the number of instances the job ran on. */
    public long instances(String job) {
        return runs(job).stream().map(Run::instance).distinct().count();
    }
}
