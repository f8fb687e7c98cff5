package io.timedjobs.scheduler.jdbc.cluster;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Thread-safe: counters of clustered jobs on this instance, for meters to read. The jobs of this
 * package count, from any thread; readers see each counter's current value (not a snapshot of all
 * of them together). Each count is kept for all jobs together and for each job ({@link #job}).
 */
public final class ClusterJobStats {

    /** Why a fire did not run here. */
    public enum SkipReason {
        /** Another instance recorded the fire first. */
        LOST,
        /** The database could not be reached, so nothing could be recorded. */
        DATABASE_DOWN,
        /** The fire was older than the horizon (this instance lagged), and the database refused it. */
        HORIZON,
        /** The job's previous run still holds its run lease, on this or another instance. */
        RUNNING,
        /** The job is paused on every instance (its row's {@code paused} flag). */
        PAUSED,
        /**
         * The cluster fires another definition of the job (a later deploy changed its schedule), so
         * this instance stands by.
         */
        SUPERSEDED
    }

    private final LongAdder won = new LongAdder();
    private final Map<SkipReason, LongAdder> skipped = new EnumMap<>(SkipReason.class);
    private final LongAdder leaseExpiries = new LongAdder();
    private final LongAdder claims = new LongAdder();
    private final LongAdder claimNanos = new LongAdder();
    private final AtomicLong maxClaimNanos = new AtomicLong();

    /** Counters of each job that has won or skipped a fire here, by job name; never removed. */
    private final Map<String, JobCounters> byJob = new ConcurrentHashMap<>();

    /**
     * One job's fires on this instance: those it won and ran, and those it skipped by reason.
     *
     * @param won fires this instance recorded and ran
     * @param skipped fires skipped here, every reason listed
     */
    public record JobCounts(long won, Map<SkipReason, Long> skipped) {

        public JobCounts {
            skipped = Collections.unmodifiableMap(new EnumMap<>(skipped));
        }

        /** Returns the fires skipped here for any reason. */
        public long skippedTotal() {
            return skipped.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Thread-safe: one job's counters. */
    private static final class JobCounters {
        final LongAdder won = new LongAdder();
        final Map<SkipReason, LongAdder> skipped = new EnumMap<>(SkipReason.class);

        JobCounters() {
            for (SkipReason reason : SkipReason.values()) {
                skipped.put(reason, new LongAdder());
            }
        }
    }

    public ClusterJobStats() {
        for (SkipReason reason : SkipReason.values()) {
            skipped.put(reason, new LongAdder());
        }
    }

    /** Counts a fire of {@code job} that this instance recorded and ran. */
    void won(String job) {
        won.increment();
        counters(job).won.increment();
    }

    /** Counts a fire of {@code job} skipped here. */
    void skipped(String job, SkipReason reason) {
        skipped.get(reason).increment();
        counters(job).skipped.get(reason).increment();
    }

    private JobCounters counters(String job) {
        return byJob.computeIfAbsent(job, name -> new JobCounters());
    }

    /** Returns one job's counts on this instance; zeros for a job that has not fired here yet. */
    public JobCounts job(String job) {
        JobCounters counters = byJob.get(job);
        Map<SkipReason, Long> skips = new EnumMap<>(SkipReason.class);
        for (SkipReason reason : SkipReason.values()) {
            skips.put(
                    reason, counters == null ? 0L : counters.skipped.get(reason).sum());
        }
        return new JobCounts(counters == null ? 0L : counters.won.sum(), skips);
    }

    /** Counts several fires of {@code job} skipped here for one reason. */
    void skipped(String job, SkipReason reason, long fires) {
        skipped.get(reason).add(fires);
        counters(job).skipped.get(reason).add(fires);
    }

    /** Counts a run lease taken over after its holder died or ran past the maximum run time. */
    void leaseExpired() {
        leaseExpiries.increment();
    }

    /** Records the database round trip of one claim attempt. */
    void claimed(long roundTripNanos) {
        claims.increment();
        claimNanos.add(roundTripNanos);
        maxClaimNanos.accumulateAndGet(roundTripNanos, Math::max);
    }

    public long firesWon() {
        return won.sum();
    }

    public long firesSkipped(SkipReason reason) {
        return skipped.get(reason).sum();
    }

    public long leaseExpiries() {
        return leaseExpiries.sum();
    }

    /** Returns the number of claim attempts that reached the database. */
    public long claimCount() {
        return claims.sum();
    }

    /** Returns the total round-trip time of those claim attempts, in nanoseconds. */
    public long claimTotalNanos() {
        return claimNanos.sum();
    }

    /** Returns the longest claim round trip seen, in nanoseconds. */
    public long claimMaxNanos() {
        return maxClaimNanos.get();
    }
}
