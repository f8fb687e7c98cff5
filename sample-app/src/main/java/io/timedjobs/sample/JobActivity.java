package io.timedjobs.sample;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/** Remembers when each job last ran and how often, for {@code GET /jobs}. */
@Component
public class JobActivity {

    /** One job's record. */
    public record JobRun(long runs, Instant lastRun, String lastThread) {}

    private final Clock clock = Clock.systemUTC();
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final Map<String, JobRun> lastRuns = new ConcurrentHashMap<>();

    void ran(String job) {
        long runs = counts.computeIfAbsent(job, name -> new AtomicLong()).incrementAndGet();
        lastRuns.put(
                job, new JobRun(runs, clock.instant(), Thread.currentThread().getName()));
    }

    /** Returns the latest run of every job that ran, by job name. */
    public Map<String, JobRun> lastRuns() {
        return new TreeMap<>(lastRuns);
    }
}
