package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.jdbc.database.DatabaseReach;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the cluster's part of the {@code timedJobs} health component, with {@code
 * scheduler-jdbc}. A read runs no statement and waits on nothing: it answers from what the
 * heartbeat's thread last learnt of the database ({@link DatabaseReach}), and from the count of
 * failed durable tasks that the same thread {@linkplain #refreshFailedTasks() refreshes}, so that a
 * probe gets its answer at once however the database behaves (gone, slow, pool exhausted).
 *
 * <ul>
 *   <li>{@code database}: {@code UP}, or {@code UNREACHABLE} (status {@code DOWN}, as Spring Boot's
 *       own {@code db} component reports) when the heartbeat's last call failed, when a call has
 *       been in flight for longer than the database timeout, or when the last answer is older than
 *       a poll interval plus the database timeout plus {@link #MARGIN}: a state that old is not
 *       reported as {@code UP}, for the heartbeat's thread may itself be stuck. So an outage shows
 *       within a poll interval plus the database timeout (plus the margin) of its start. The
 *       details give the ages ({@code databaseLastAnswer}, {@code databaseCallInFlight}) and the
 *       outage's length;
 *   <li>{@code refusedJobs}: the clustered jobs this instance refuses, each with why; status
 *       {@link SchedulerHealth#REFUSED_JOBS} when there is one;
 *   <li>{@code failedDurableTasks}: durable tasks out of attempts, when durable tasks are on; a
 *       detail only: they wait for an operator, the instance itself is fine.
 * </ul>
 */
final class ClusterHealth implements SchedulerHealth.ClusterPart {

    /** How long a count of failed durable tasks is reused: one statement per period, on the heartbeat's thread. */
    static final Duration REUSE = Duration.ofSeconds(5);

    /** Slack over a poll interval plus the database timeout before an answer counts as too old. */
    static final Duration MARGIN = Duration.ofMillis(500);

    private final Supplier<Map<String, String>> refusedJobs;
    private final OutageLog outages;
    private final DatabaseReach reach;
    private final Duration callLimit;
    private final Duration answerLimit;
    private final Supplier<@Nullable Map<String, Long>> durableCounts;
    private final LongSupplier nanoTime;

    /** The last count of failed durable tasks (null: none known); written by the heartbeat's thread. */
    private volatile @Nullable Long failedTasks;

    /** {@code nanoTime} of the last count tried; heartbeat's thread only. */
    private long countedAt;

    private boolean counted;

    /** {@code nanoTime} of the last read, or 0 before any: counts are taken only while health is read. */
    private volatile long readAt;

    private volatile boolean read;

    /**
     * @param refusedJobs the clustered jobs this instance refuses, each with why (no statement)
     * @param outages the heartbeat's outage log
     * @param reach what the heartbeat last learnt of the database
     * @param pollInterval the heartbeat's poll interval
     * @param databaseTimeout the longest wait of a call ({@code timed-jobs.cluster.database-timeout})
     * @param durableCounts durable tasks by state (one statement, on the heartbeat's thread); answers
     *     null when durable tasks are off
     * @param nanoTime the clock of {@link #REUSE}
     */
    ClusterHealth(
            Supplier<Map<String, String>> refusedJobs,
            OutageLog outages,
            DatabaseReach reach,
            Duration pollInterval,
            Duration databaseTimeout,
            Supplier<@Nullable Map<String, Long>> durableCounts,
            LongSupplier nanoTime) {
        this.refusedJobs = Objects.requireNonNull(refusedJobs, "refusedJobs");
        this.outages = Objects.requireNonNull(outages, "outages");
        this.reach = Objects.requireNonNull(reach, "reach");
        this.callLimit = Objects.requireNonNull(databaseTimeout, "databaseTimeout");
        this.answerLimit = Objects.requireNonNull(pollInterval, "pollInterval")
                .plus(databaseTimeout)
                .plus(MARGIN);
        this.durableCounts = Objects.requireNonNull(durableCounts, "durableCounts");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    @Override
    public String read(Map<String, Object> details) {
        readAt = nanoTime.getAsLong();
        read = true;
        DatabaseReach.Reading reading = reach.read();
        Duration sinceAnswer = reading.sinceAnswer();
        Duration inFlight = reading.callInFlight();
        boolean reachable = !reading.lastFailed()
                && !outages.inOutage()
                && (inFlight == null || inFlight.compareTo(callLimit) <= 0)
                && sinceAnswer != null
                && sinceAnswer.compareTo(answerLimit) <= 0;
        details.put("database", reachable ? "UP" : "UNREACHABLE");
        if (sinceAnswer != null) {
            details.put("databaseLastAnswer", sinceAnswer.toString());
        }
        if (inFlight != null) {
            details.put("databaseCallInFlight", inFlight.toString());
        }
        if (outages.inOutage()) {
            details.put("databaseOutage", outages.outageLength().toString());
        }
        details.put("databaseFailures", outages.failureCount());
        Map<String, String> refused = refusedJobs.get();
        details.put("refusedJobs", refused);
        Long failed = failedTasks;
        if (failed != null) {
            details.put("failedDurableTasks", failed);
        }
        if (!reachable) {
            return "DOWN";
        }
        return refused.isEmpty() ? "UP" : SchedulerHealth.REFUSED_JOBS;
    }

    /**
     * Counts the failed durable tasks once, then again whenever the last count is older than {@link
     * #REUSE} and health was read within {@link DatabaseReach#WATCHED_FOR}: a poll action of the heartbeat, so the statement runs on its thread, never on a health caller's. A
     * failure keeps the last count (the heartbeat reports the outage) and waits the same period.
     */
    void refreshFailedTasks() {
        long now = nanoTime.getAsLong();
        if (counted && (!read || now - readAt >= DatabaseReach.WATCHED_FOR.toNanos())) {
            return; // unread: no statement, but for the first count (the heartbeat's first poll, at start-up)
        }
        if (counted && now - countedAt < REUSE.toNanos()) {
            return;
        }
        counted = true;
        countedAt = now;
        try {
            Map<String, Long> counts = durableCounts.get();
            failedTasks = counts == null ? null : counts.getOrDefault("FAILED", 0L);
        } catch (RuntimeException databaseDown) {
            // the last count stays shown; the heartbeat's own call reports the outage
        }
    }
}
