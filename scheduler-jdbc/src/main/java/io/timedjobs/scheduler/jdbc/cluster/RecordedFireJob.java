package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * A clustered job whose fires are recorded, one row each, by whoever wins them: cron and fixed-rate
 * jobs; thread rule of {@link ClusteredJob}. Holds their fire protocol and the reasons a fire was
 * not recorded here.
 */
abstract class RecordedFireJob extends ClusteredJob {

    /** The fires the schedule steps over after a run here that lasted past them. */
    private final PassedFires passed = new PassedFires(this);

    protected RecordedFireJob(String name, Runnable task, JobContext context) {
        super(name, task, context);
    }

    /**
     * Returns {@code next}, the fire the schedule stepped to, having written the fates of the fires
     * it steps over after a run here that lasted past them (see {@link PassedFires}).
     */
    protected final @Nullable Instant steppedTo(@Nullable Instant next) {
        return passed.steppedTo(next);
    }

    /** A catch-up run here has ended, begun while {@code next} was the schedule's next fire (see {@link PassedFires}). */
    final void caughtUpBefore(Instant next) {
        passed.ranBefore(next);
    }

    /** The fires stepped over after the last run here are accounted for by the caller. */
    protected final void passedAccountedFor() {
        passed.forget();
    }

    /**
     * The fire protocol of cron and fixed-rate jobs: record the fire (whoever records it runs it;
     * nobody records it while the job is paused), take the run lease (so that runs never overlap
     * across instances; on PostgreSQL in the statement that records), run, release.
     */
    @Override
    protected final void runFire(Instant fire) {
        JobStore store = context.store();
        ClusterJobStats stats = context.stats();
        long start = System.nanoTime();
        // heard recorded elsewhere (by an instance before this one in the fire's order, or after it
        // while this one's worker was late): no statement to lose it, once the start's look back is done
        boolean heard = context.notices().recorded(name, fire, key());
        if (heard && (catchesUp() || fates.lookedBack())) {
            stats.skipped(name, SkipReason.LOST);
            fates.back(); // skips kept until past the horizon: no statement unless some are now
            return;
        }
        Object call = beginCall(fire);
        if (call == null) {
            return;
        }
        try {
            liftFenceIfDue();
            if (!catchesUp()) {
                fates.missedBefore(fire); // once per start, at its first fire, heard or not
            }
            if (heard) {
                stats.skipped(name, SkipReason.LOST);
                return;
            }
            // a job with a catch-up policy moves its watermark with the record; the others learn
            // why a fire was lost from the insert that lost, and take the lease with the insert
            // that won, where the dialect folds them into one statement
            JobStore.FireAttempt attempt;
            JobStore.Lease lease;
            if (!catchesUp()) {
                JobStore.FireAndLease both = store.recordFireAndLease(
                        name,
                        key(),
                        fire,
                        context.fireHorizon(),
                        context.maxRunTime(),
                        context.notices().channel());
                attempt = both.attempt();
                lease = both.lease();
                recordedLast(attempt.recorded());
            } else {
                attempt = JobStore.FireAttempt.unexplained(
                        store.catchUp().recordFireAndAdvance(name, key(), fire, context.fireHorizon()));
                lease = attempt.recorded() ? store.acquireLease(name, context.maxRunTime()) : null;
            }
            stats.claimed(System.nanoTime() - start);
            context.outages().succeeded();
            fates.back();
            if (!attempt.recorded() || lease == null) {
                SkipReason why = attempt.known() ? whyNotRecorded(fire, attempt) : whyNotRecorded(fire);
                stats.skipped(name, why);
                if (why == SkipReason.PAUSED && store.claimFire(name, fire, context.fireHorizon())) {
                    // claimed, so that an instance that finds the job resumed cannot run it after
                    fates.skipped(fire, io.timedjobs.scheduler.jdbc.history.SkipReason.PAUSED);
                } else if (why == SkipReason.SUPERSEDED) {
                    fates.superseded(fire);
                }
                return;
            }
            if (lease == JobStore.Lease.BUSY) {
                stats.skipped(name, SkipReason.RUNNING);
                fates.skipped(fire, io.timedjobs.scheduler.jdbc.history.SkipReason.STILL_RUNNING);
                return;
            }
            if (lease == JobStore.Lease.TAKEN_OVER) {
                leaseExpired();
                store.history().abandoned().takenOver(name, store.instance(), store.skipGate()::openToAbandoned);
            }
        } catch (DataAccessException ex) {
            context.outages().failed("claim of job " + name, ex);
            stats.skipped(name, SkipReason.DATABASE_DOWN);
            fates.down(fire);
            return;
        } finally {
            context.calls().end(call);
        }
        stats.won(name);
        long began = System.nanoTime();
        @Nullable Throwable failure = null;
        try {
            runTask(fire);
        } catch (RuntimeException | Error ex) {
            failure = ex;
            throw ex;
        } finally {
            passed.ran(fire); // it held the lease until now: the fires it outlasted did not run
            long tookNanos = System.nanoTime() - began;
            @Nullable Throwable outcome = failure;
            endOfRun(() -> {
                try {
                    if (!store.releaseLease(name, fire, tookNanos, outcome)) {
                        leaseLostDuringRun();
                    }
                } catch (DataAccessException ex) {
                    context.outages().failed("release of job " + name, ex);
                    keepUnwritten(store.run(name, fire, tookNanos, outcome));
                }
            });
        }
    }

    /**
     * Keeps the record of a run whose end could not be written, to write it once the database is
     * back (see {@link UnwrittenEnds}): it ran, and the history says so.
     */
    final void keepUnwritten(io.timedjobs.scheduler.jdbc.history.FinishedRun run) {
        if (context.store().history().enabled()) {
            context.calls().unwritten().keep(run);
        }
    }

    /**
     * Returns why a fire was not recorded; the reason costs a read only on this path, a fire that is
     * recorded costs none. Stands by when another definition of the job fires now.
     */
    private SkipReason whyNotRecorded(Instant fire) {
        if (fire.isBefore(context.clock().now().minus(context.fireHorizon()))) {
            return SkipReason.HORIZON;
        }
        JobStore.JobRow row = context.store().read(name);
        if (row != null && !key().equals(row.definitionKey())) {
            standBy(row);
            return SkipReason.SUPERSEDED;
        }
        return row != null && row.paused() ? SkipReason.PAUSED : SkipReason.LOST;
    }

    /**
     * {@link #whyNotRecorded(Instant)} from what the statement that lost read of the job's row: no
     * read of its own, but for a fire of another definition (then the row is read once to stand by).
     */
    private SkipReason whyNotRecorded(Instant fire, JobStore.FireAttempt attempt) {
        if (fire.isBefore(context.clock().now().minus(context.fireHorizon()))) {
            return SkipReason.HORIZON;
        }
        if (attempt.definitionKey() != null && !key().equals(attempt.definitionKey())) {
            return whyNotRecorded(fire);
        }
        return attempt.paused() ? SkipReason.PAUSED : SkipReason.LOST;
    }
}
