package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Used by one {@link ClusteredJob} only, under its thread rule (trigger and run alternate): the
 * catch-up of the fires the job missed while no instance ran it, by its {@link CatchUpPolicy}.
 *
 * <p>When the job first has a fire to try (at start-up, and again once a known database outage
 * ends), it reads the job's watermark, the latest fire run or skipped on purpose across the cluster,
 * and lists the nominal fires after it and before the fire the job tries next; the policy keeps the
 * latest ones within its window ({@link CatchUpPolicy#missedFires}), the older ones are skipped
 * on purpose (see {@link #plan}). They
 * are tried first, oldest first, each as its own run: take the run lease (so that catch-up runs on
 * several instances do not overlap, and the instances that started together take turns), then in
 * one transaction move the watermark to the fire by compare-and-set and record it. Whoever moves the
 * watermark runs the fire; an instance that finds it at or past the fire drops it, since another
 * instance ran it or passed it, or writes it as paused when the job is paused (see {@link
 * #claimedPaused}). A busy lease is tried again a poll interval later. Until a job has
 * a watermark (its policy was just declared), the latest fire record stands in for it while records
 * live; without either there is nothing to catch up, and the job's first fire sets the watermark.
 */
final class CatchUpRun {

    private static final Log logger = LogFactory.getLog(CatchUpRun.class);

    private final ClusteredJob job;
    private final CatchUpPolicy policy;
    private final UnaryOperator<@Nullable Instant> fires;
    private final Deque<Instant> missed = new ArrayDeque<>();

    /** Whether the missed fires are listed; false at start and after a known outage. */
    private volatile boolean planned;

    /**
     * Whether the next try waits a poll interval: the last one found the run lease busy, or was not
     * made because the instance is leaving ({@link #deferred()}). Written by the job's run and read
     * by its trigger, which alternate but may be on different pool threads: hence volatile.
     */
    private volatile boolean busy;

    /** The schedule's next fire when the missed fire tried now was chosen; its run may outlast it. */
    private volatile @Nullable Instant scheduledNext;

    private CatchUpRun(ClusteredJob job, CatchUpPolicy policy, UnaryOperator<@Nullable Instant> fires) {
        this.job = Objects.requireNonNull(job, "job");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.fires = fires;
    }

    /**
     * Returns the catch-up of a job by its policy, or null for {@code SKIP}.
     *
     * @throws IllegalStateException when the job's kind has no missed fires to catch up
     */
    static @Nullable CatchUpRun of(ClusteredJob job, CatchUpPolicy policy) {
        if (!policy.catchesUp()) {
            return null;
        }
        UnaryOperator<@Nullable Instant> fires = job.nominalFires();
        if (fires == null) {
            throw new IllegalStateException("Clustered job " + job.name() + " (" + job.jobSchedule()
                    + ") declares catch-up " + policy + ", but only cron and fixed-rate jobs have missed fires to"
                    + " catch up: a fixed-delay job's next fire, when late, runs once anyway. Remove the declaration"
                    + " (@CatchUp or timed-jobs.cluster.jobs[" + job.name() + "].catch-up.policy)");
        }
        return new CatchUpRun(job, policy, fires);
    }

    /**
     * Returns the missed fire to try before {@code next}, the job's next fire, or null when none is
     * left; lists them first if due.
     */
    @Nullable
    Instant nextMissed(Instant next) {
        JobContext context = job.context;
        if (context.outages().inOutage()) {
            planned = false; // fires missed during the outage are listed once it ends
            missed.clear();
            return null;
        }
        if (!planned) {
            try {
                plan(next);
            } catch (DataAccessException ex) {
                context.outages().failed("catch-up of job " + job.name(), ex);
                return null;
            }
            planned = true;
        }
        scheduledNext = next;
        return missed.peekFirst();
    }

    /**
     * The missed fire at the head of the list was not tried (the instance is leaving): it stays, and
     * the next try waits a poll interval, as after a busy lease, rather than come back at once.
     */
    void deferred() {
        busy = true;
    }

    /** Whether the last try found the lease busy: the next try waits a poll interval. */
    boolean waitBeforeNext() {
        return busy;
    }

    /**
     * Lists the missed fires to try. The bounds are decided once across the cluster: the first
     * instance to plan moves the watermark, by compare-and-set on the value it read, past the fires
     * it skips on purpose (older than the window, or beyond the maximum count); every instance then
     * lists the first fires after the watermark it reads back, so all list the same ones whatever
     * the moment each plans.
     */
    private void plan(Instant next) {
        JobContext context = job.context;
        CatchUpStore store = context.store().catchUp();
        missed.clear();
        // A fire recorded but not under the watermark (an instance of an earlier release ran it, or
        // the policy is new) counts too while its record lives.
        Instant recorded = store.lastRecordedFire(job.name());
        Instant stored = store.watermark(job.name());
        Instant read = later(stored, recorded);
        if (read == null || !read.isBefore(next)) {
            return;
        }
        Instant now = context.clock().now();
        CatchUpPolicy.Missed found = policy.missedFires(read, next, now, fires);
        if (found.run().isEmpty()) {
            return;
        }
        boolean skips = found.skipsSome();
        Instant watermark = read;
        if (skips) {
            store.skipMissedFires(
                    job.name(), job.key(), stored, found.run().get(0).minus(1, ChronoUnit.MICROS));
            job.fates.dropped(fires.apply(read), found.run().get(0));
            watermark = later(store.watermark(job.name()), recorded);
            if (watermark == null) {
                return;
            }
        }
        List<Instant> planned = policy.firstMissedFires(watermark, next, now, fires);
        missed.addAll(planned);
        logger.info("Clustered job " + job.name() + " missed fires since " + read + " (catch-up " + policy
                + "): this instance tries " + planned + (skips ? ", the older ones are skipped on purpose" : "")
                + "; each runs once across the cluster");
    }

    private static @Nullable Instant later(@Nullable Instant one, @Nullable Instant other) {
        if (one == null || other == null) {
            return one == null ? other : one;
        }
        return one.isAfter(other) ? one : other;
    }

    /**
     * Tries the missed fire at the head of the list: runs it if this instance gets it, drops it if
     * another instance ran or passed it, keeps it if the lease is busy.
     */
    void run(Instant fire) {
        JobContext context = job.context;
        JobStore store = context.store();
        ClusterJobStats stats = context.stats();
        long start = System.nanoTime();
        busy = false;
        // once taken, the lease is given back unless the fire runs: a claim that fails (or is
        // refused) must not leave it held, or the job's fires would count as still running
        boolean leased = false;
        boolean claimed = false;
        try {
            JobStore.Lease lease = store.acquireLease(job.name(), context.maxRunTime());
            if (lease == JobStore.Lease.BUSY) {
                stats.claimed(System.nanoTime() - start);
                context.outages().succeeded();
                busy = true;
                return;
            }
            leased = true;
            if (lease == JobStore.Lease.TAKEN_OVER) {
                job.leaseExpired();
                store.history().abandoned().takenOver(job.name(), store.instance(), store.skipGate()::openToAbandoned);
            }
            missed.pollFirst();
            claimed = store.catchUp().claimMissedFire(job.name(), job.key(), fire);
            stats.claimed(System.nanoTime() - start);
            context.outages().succeeded();
            if (!claimed) {
                stats.skipped(job.name(), claimedPaused(store, fire) ? SkipReason.PAUSED : SkipReason.LOST);
                return;
            }
        } catch (DataAccessException ex) {
            context.outages().failed("catch-up claim of job " + job.name(), ex);
            stats.skipped(job.name(), SkipReason.DATABASE_DOWN);
            return;
        } finally {
            if (leased && !claimed) {
                release(store);
            }
        }
        stats.won(job.name());
        long began = System.nanoTime();
        Throwable failure = null;
        try {
            job.runTask(fire, true);
        } catch (RuntimeException | Error ex) {
            failure = ex;
            throw ex;
        } finally {
            Instant next = scheduledNext;
            if (next != null && job instanceof RecordedFireJob recorded) {
                recorded.caughtUpBefore(next); // the schedule's fires it outlasted did not run
            }
            Throwable outcome = failure;
            long tookNanos = System.nanoTime() - began;
            if (!release(() -> store.releaseLease(job.name(), fire, tookNanos, outcome, true))
                    && store.history().enabled()) {
                // it ran: its record is written once the database is back (see UnwrittenEnds)
                context.calls()
                        .unwritten()
                        .keep(FinishedRun.ofJob(job.name(), fire, store.instanceName(), tookNanos, outcome, true));
            }
        }
    }

    /**
     * The claim of a missed fire was refused: when the job is paused (the watermark does not move
     * while it is), claims the fire as a paused fire of the schedule is claimed (its record in the
     * fires table, if absent, so that a catch-up after the job is resumed cannot run it) and, if
     * this instance's claim went through, writes it as {@code PAUSED}. Returns whether the job is
     * paused. One read of the job's row, on this path only.
     */
    private boolean claimedPaused(JobStore store, Instant fire) {
        JobStore.JobRow row = store.read(job.name());
        if (row == null || !row.paused() || !job.key().equals(row.definitionKey())) {
            return false; // another instance ran or passed the fire, or another definition fires
        }
        if (store.catchUp().claimPausedFire(job.name(), fire)) {
            job.fates.skipped(fire, io.timedjobs.scheduler.jdbc.history.SkipReason.PAUSED);
        }
        return true;
    }

    private void release(JobStore store) {
        release(() -> store.releaseLease(job.name()));
    }

    /**
     * Releases the run lease (recording the run, for one that ran); logs a lease lost meanwhile.
     * Returns false when the database could not be reached.
     */
    private boolean release(java.util.function.BooleanSupplier release) {
        try {
            if (!release.getAsBoolean()) {
                job.leaseLostDuringRun();
            }
            return true;
        } catch (DataAccessException ex) {
            job.context.outages().failed("release of job " + job.name(), ex);
            return false;
        }
    }
}
