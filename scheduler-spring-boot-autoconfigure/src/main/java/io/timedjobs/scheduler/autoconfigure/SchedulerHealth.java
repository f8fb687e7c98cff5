package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code timedJobs} health component reports: a status code and details read from the
 * engine's live figures, without Spring Boot's health types, which moved between Boot 3.5 and 4.
 * Thread-safe: any thread may read; each read is a fresh snapshot.
 *
 * <p>Statuses: {@code UP} while the scheduler runs; {@link #LATE} while the most overdue waiting
 * task is later than the configured threshold; {@code OUT_OF_SERVICE} once it has shut down.
 * Lateness alone never reports {@code DOWN} or {@code OUT_OF_SERVICE}: a busy scheduler is not a
 * broken one, and probes must not restart it for that.
 *
 * <p>With {@code scheduler-jdbc}, the {@link ClusterPart} adds the cluster's state: {@code DOWN}
 * while the database cannot be reached, {@link #REFUSED_JOBS} while this instance refuses a
 * clustered job. The worst wins: {@code OUT_OF_SERVICE}, {@code DOWN}, {@code REFUSED_JOBS},
 * {@code LATE}, {@code UP}.
 */
final class SchedulerHealth {

    /** Status while the most overdue waiting task is later than the threshold. */
    static final String LATE = "LATE";

    /**
     * Status while this instance refuses to run a clustered job (its definition here conflicts with
     * the one recorded): the job never runs here until the conflict is fixed and the instance restarts.
     */
    static final String REFUSED_JOBS = "REFUSED_JOBS";

    /**
     * The cluster's part of the component, kept apart so that this class loads without {@code
     * scheduler-jdbc}. Thread-safe: any thread may read it.
     */
    interface ClusterPart {

        /** Adds the cluster's details and returns the status they call for: {@code UP}, {@code DOWN} or {@link #REFUSED_JOBS}. */
        String read(Map<String, Object> details);
    }

    private final LeaderFollowerScheduler engine;
    private final @Nullable Duration latenessThreshold;
    private final @Nullable ClusterPart cluster;

    SchedulerHealth(LeaderFollowerScheduler engine, @Nullable Duration latenessThreshold) {
        this(engine, latenessThreshold, null);
    }

    /** @param cluster the cluster's state; null without {@code scheduler-jdbc} */
    SchedulerHealth(
            LeaderFollowerScheduler engine, @Nullable Duration latenessThreshold, @Nullable ClusterPart cluster) {
        this.engine = engine;
        this.latenessThreshold = latenessThreshold;
        this.cluster = cluster;
    }

    /** A status code and its details, read now. */
    record Snapshot(String status, Map<String, Object> details) {}

    Snapshot read() {
        long overdueNanos = engine.getOverdue(TimeUnit.NANOSECONDS);
        Duration lateness = Duration.ofNanos(overdueNanos);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("queueDepth", engine.getQueueSize());
        details.put("poolSize", engine.getCorePoolSize());
        details.put("activeTasks", engine.getActiveCount());
        details.put("lateness", lateness.toString());
        String status = "UP";
        Duration threshold = latenessThreshold;
        if (threshold != null) {
            boolean late = lateness.compareTo(threshold) > 0;
            details.put("latenessThreshold", threshold.toString());
            details.put("late", late);
            if (late) {
                status = LATE;
            }
        }
        ClusterPart clusterPart = cluster;
        if (clusterPart != null) {
            String clusterStatus = clusterPart.read(details);
            if (!"UP".equals(clusterStatus)) {
                status = clusterStatus; // DOWN or REFUSED_JOBS: either outranks LATE
            }
        }
        if (engine.isShutdown()) {
            status = "OUT_OF_SERVICE";
        }
        return new Snapshot(status, details);
    }
}
