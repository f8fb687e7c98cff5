package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the cluster's part of the {@code timedJobs} health component, with {@code
 * scheduler-jdbc}. Health endpoints are polled, so a read costs no statement except the count of
 * failed durable tasks, which is taken at most once per {@link #REUSE} and never while the
 * database is known to be unreachable (a health call must not wait on a connection timeout).
 *
 * <ul>
 *   <li>{@code database}: {@code UP}, or {@code UNREACHABLE} while the heartbeat's last call
 *       failed (the heartbeat calls every poll interval, so it is the freshest witness), with the
 *       outage's length; status {@code DOWN}, as Spring Boot's own {@code db} component reports;
 *   <li>{@code refusedJobs}: the clustered jobs this instance refuses, each with why; status
 *       {@link SchedulerHealth#REFUSED_JOBS} when there is one;
 *   <li>{@code failedDurableTasks}: durable tasks out of attempts, when durable tasks are on; a
 *       detail only: they wait for an operator, the instance itself is fine.
 * </ul>
 */
final class ClusterHealth implements SchedulerHealth.ClusterPart {

    /** How long a count of failed durable tasks is reused: one statement per period, however often health is polled. */
    static final Duration REUSE = Duration.ofSeconds(5);

    private final Supplier<Map<String, String>> refusedJobs;
    private final OutageLog database;
    private final Supplier<@Nullable Map<String, Long>> durableCounts;
    private final LongSupplier nanoTime;

    /** A count taken (or tried: null after a failure with no count before) at {@code atNanos}. */
    private record Reading(long atNanos, @Nullable Long failed) {}

    /** The last count of failed durable tasks; replaced whole, never changed. */
    private volatile @Nullable Reading failedTasks;

    /**
     * @param refusedJobs the clustered jobs this instance refuses, each with why (no statement)
     * @param database the heartbeat's outage log
     * @param durableCounts durable tasks by state (one statement); answers null when durable tasks are off
     * @param nanoTime the clock of {@link #REUSE}
     */
    ClusterHealth(
            Supplier<Map<String, String>> refusedJobs,
            OutageLog database,
            Supplier<@Nullable Map<String, Long>> durableCounts,
            LongSupplier nanoTime) {
        this.refusedJobs = Objects.requireNonNull(refusedJobs, "refusedJobs");
        this.database = Objects.requireNonNull(database, "database");
        this.durableCounts = Objects.requireNonNull(durableCounts, "durableCounts");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public String read(Map<String, Object> details) {
        boolean reachable = !database.inOutage();
        details.put("database", reachable ? "UP" : "UNREACHABLE");
        if (!reachable) {
            details.put("databaseOutage", database.outageLength().toString());
        }
        details.put("databaseFailures", database.failureCount());
        Map<String, String> refused = refusedJobs.get();
        details.put("refusedJobs", refused);
        Long failed = failedTasks(reachable);
        if (failed != null) {
            details.put("failedDurableTasks", failed);
        }
        if (!reachable) {
            return "DOWN";
        }
        return refused.isEmpty() ? "UP" : SchedulerHealth.REFUSED_JOBS;
    }

    /** Returns the count of failed durable tasks, read again if older than {@link #REUSE}; null if none is known. */
    private @Nullable Long failedTasks(boolean reachable) {
        Reading last = failedTasks;
        long now = nanoTime.getAsLong();
        if (!reachable || (last != null && now - last.atNanos() < REUSE.toNanos())) {
            return last == null ? null : last.failed();
        }
        synchronized (this) {
            last = failedTasks; // another caller may have just read it
            if (last != null && now - last.atNanos() < REUSE.toNanos()) {
                return last.failed();
            }
            Reading reading;
            try {
                Map<String, Long> counts = durableCounts.get();
                reading = new Reading(now, counts == null ? null : counts.getOrDefault("FAILED", 0L));
            } catch (RuntimeException databaseDown) {
                // The heartbeat reports the outage; meanwhile keep the last count, and try again
                // only after the same period, so that failures cost no more statements than reads.
                reading = new Reading(now, last == null ? null : last.failed());
            }
            failedTasks = reading;
            return reading.failed();
        }
    }
}
