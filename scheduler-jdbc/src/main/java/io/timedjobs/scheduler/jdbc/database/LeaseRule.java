package io.timedjobs.scheduler.jdbc.database;

import java.time.Duration;
import java.util.Objects;

/**
 * Stateless; any thread. Not API: the one rule that times everything derived from the lease
 * ({@code timed-jobs.cluster.lease}) and the poll interval. The instance and its heartbeat, the
 * clustered jobs, the durable tasks and the auto-configuration ask it; none keeps a share of the
 * lease of its own. docs/several-instances.md, "The lease rule", states it for users.
 *
 * <p>Two different things are renewed, under two names:
 *
 * <ol>
 *   <li><b>The heartbeat</b> is the instance's own: it writes {@code heartbeat_at} in its row of the
 *       instances table every {@linkplain #beatInterval beat interval}, half the lease but never
 *       shorter than the poll interval (the heartbeat's thread wakes no more often). A beat that
 *       fails is tried again at every poll, so a beat may fail or come late by up to half the lease
 *       before the instance counts as dead.
 *   <li><b>The take-over</b>: an instance whose heartbeat is older than the {@linkplain #takeOverAfter
 *       lease} counts as dead. The others take its run leases over, and a process restarting under
 *       its name its row. A beat may be due just as a pause begins, so an instance paused or cut off
 *       from the database for about half its lease may be taken over. A row left under a name is
 *       watched for {@value #WATCHED_BEATS} beat intervals before it is taken over while still
 *       young; rows dead for ten leases are pruned, every five leases. A graceful stop keeps beating while the runs going on end, at
 *       most {@linkplain #stopWait half the lease}.
 *   <li><b>The lease renewal</b> is the durable claims': a claim holds its task until {@code
 *       lease_until}, the lease after its claim, its start or its last renewal. The owner's poll
 *       renews its claims every {@linkplain #renewalInterval renewal interval}, a quarter
 *       of the lease, and only those that end within the {@linkplain
 *       #renewalWindow rest of the lease}: a claim never has less than half its lease left, give or
 *       take a late poll, and a task claimed and ended within seconds is never rewritten for its
 *       lease. A claimed task that waited for a worker longer than a renewal interval runs only once
 *       the database renewed its claim as still this instance's.
 *   <li><b>The rescue</b>: a claim whose lease ended is taken by the next poll of any instance with
 *       its handler, so a dead instance's claims run elsewhere within the {@linkplain #rescueBound
 *       lease plus a poll interval} of its last renewal. An idle instance that sleeps (PostgreSQL)
 *       looks for claims with each beat, so within a beat interval, before a claim made meanwhile
 *       can expire.
 * </ol>
 */
public final class LeaseRule {

    /** How many beat intervals fit in a lease: an instance beats every half of its lease. */
    private static final int BEATS_PER_LEASE = 2;

    /** How many renewal intervals fit in a lease: durable claims are renewed every quarter lease. */
    public static final int RENEWALS_PER_LEASE = 4;

    /** How many beat intervals a young row left under a name is watched before it is taken over. */
    public static final int WATCHED_BEATS = 2;

    /** How many leases an instance row outlives its last heartbeat before it is pruned. */
    private static final int PRUNE_AFTER_LEASES = 10;

    /** How many leases apart an instance prunes the rows of dead instances. */
    private static final int PRUNE_EVERY_LEASES = 5;

    private LeaseRule() {}

    /**
     * Returns how often an instance beats: half the lease, so that a beat may fail or come late by up
     * to half the lease (it is tried again at every poll) without the instance counting as dead, but
     * never shorter than the poll interval (the heartbeat's thread wakes no more often). An idle
     * instance that sleeps looks for durable work at this pace too, with each beat.
     */
    public static Duration beatInterval(Duration lease, Duration pollInterval) {
        Duration half = lease.dividedBy(BEATS_PER_LEASE);
        return half.compareTo(pollInterval) < 0 ? pollInterval : half;
    }

    /**
     * Returns how old an instance's last heartbeat may be before the instance counts as dead and its
     * run leases are taken over: the lease. A heartbeat that stood still that long is also what the
     * instance itself warns about on waking.
     */
    public static Duration takeOverAfter(Duration lease) {
        return lease;
    }

    /** Returns how long a graceful stop waits, still beating, for the runs going on to end: half the lease. */
    public static Duration stopWait(Duration lease) {
        return lease.dividedBy(BEATS_PER_LEASE);
    }

    /** Returns how long an instance row outlives its last heartbeat before it is pruned. */
    public static Duration pruneAfter(Duration lease) {
        return lease.multipliedBy(PRUNE_AFTER_LEASES);
    }

    /** Returns how often an instance prunes the rows of dead instances. */
    public static Duration pruneEvery(Duration lease) {
        return lease.multipliedBy(PRUNE_EVERY_LEASES);
    }

    /**
     * Returns how often the owner of durable claims renews their leases: a quarter of the lease, at
     * the first poll after it. A claimed task that waited longer for a worker checks that its claim
     * is still held before it runs.
     */
    public static Duration renewalInterval(Duration lease) {
        return lease.dividedBy(RENEWALS_PER_LEASE);
    }

    /**
     * Returns the bound of a renewal: it renews only the claims whose lease ends within this from
     * now, the lease less a renewal interval. The others were claimed, started or renewed lately,
     * and keep at least half their lease until the next renewal.
     */
    public static Duration renewalWindow(Duration lease) {
        return lease.minus(renewalInterval(lease));
    }

    /**
     * Returns the longest a dead instance's durable claim waits for another instance: its lease ends
     * a lease after its last renewal, and the next poll of an instance with its handler takes it.
     */
    public static Duration rescueBound(Duration lease, Duration pollInterval) {
        return lease.plus(pollInterval);
    }

    /**
     * Checks that the poll, which renews the durable claims, comes more often than a lease.
     *
     * @throws IllegalArgumentException when the lease is not longer than the poll interval
     */
    public static void requireRenewable(Duration lease, Duration pollInterval) {
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(pollInterval, "pollInterval");
        if (lease.compareTo(pollInterval) <= 0) {
            throw new IllegalArgumentException("The lease (" + lease + ") must be longer than the poll interval ("
                    + pollInterval + "), which renews it");
        }
    }
}
