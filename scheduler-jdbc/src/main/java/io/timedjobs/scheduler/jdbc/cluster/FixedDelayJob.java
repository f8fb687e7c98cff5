package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.spring.NamedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * A clustered fixed-delay job; thread rule of {@link ClusteredJob}.
 *
 * <p>The next fire is the completion of the previous run plus the delay, and that completion may
 * happen on any instance, so the job's row holds it ({@code next_fire_at}). A run goes:
 *
 * <ol>
 *   <li>Every instance reads the row and wakes up at the next fire.
 *   <li>Claim: one update that succeeds only if the row still holds that next fire, it is due by
 *       the database's clock, and no live run holds the lease. It clears the next fire and takes
 *       the lease. One instance succeeds; the fire is also recorded, as for the other kinds.
 *   <li>While the next fire is cleared, the others poll the row every poll interval.
 *   <li>Completion writes next fire = the database's time + delay and frees the lease, only while
 *       this instance still holds the lease of the run: the late completion of a run taken over
 *       (its instance was frozen or cut off past the lease) changes nothing and is logged.
 *   <li>A holder that dies (no heartbeat for the lease time) or runs past the maximum run time:
 *       the first instance to notice ends its run as if completed then. Its fire is not run again;
 *       the next one comes a delay later.
 * </ol>
 *
 * <p>While the row is paused, the read that picks the next fire sees it (no extra query): a fire
 * ahead is waited for and counted skipped, a fire due is looked at again every poll interval, and
 * the claim refuses a paused row in case the pause came between the read and the claim.
 */
final class FixedDelayJob extends ClusteredJob {

    /** How early (by the database's clock) an instance may claim: covers the offset's own error. */
    private static final Duration EARLY = Duration.ofMillis(20);

    private final Duration delay;
    private final Duration initialDelay;

    /** Whether the row read for the pending fire was paused; see {@link ClusteredJob}'s thread rule. */
    private volatile boolean paused;

    public FixedDelayJob(String name, Runnable task, JobContext context, Duration delay, Duration initialDelay) {
        super(name, task, context);
        this.delay = Objects.requireNonNull(delay, "delay");
        this.initialDelay = Objects.requireNonNull(initialDelay, "initialDelay");
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("delay must be positive, was " + delay);
        }
        define(JobDefinition.of("fixed-delay", delay.toString(), null, initialDelay));
    }

    @Override
    protected @Nullable Instant proposedNextFire() {
        return context.clock().now().plus(initialDelay);
    }

    @Override
    protected @Nullable Instant nextFire() {
        if (context.outages().inOutage()) {
            return null; // look again a poll later, once the heartbeat found the database back
        }
        Object call = context.calls().beginIfRoom(workers());
        if (call == null) {
            if (context.calls().suspect()) {
                return null; // likely away, and the other workers wait on it: a poll later
            }
            call = context.calls().begin(); // the trigger's read is not held to the room
        }
        JobStore store = context.store();
        try {
            JobStore.JobRow row = store.read(name);
            context.outages().succeeded();
            if (row == null) {
                return null;
            }
            if (!key().equals(row.definitionKey())) {
                standBy(row); // another definition fires now: the trigger looks again a poll later
                return null;
            }
            paused = row.paused();
            if (row.paused()) {
                // Wake up at the fire to count it skipped if it is ahead; look again a poll later
                // once it is due, so that a paused job never spins on its due fire.
                Instant next = row.nextFireAt();
                return next != null && next.isAfter(context.clock().now()) ? next : null;
            }
            String owner = row.leaseOwner();
            if (row.nextFireAt() == null && owner != null) {
                if (store.delayed().expireDelayedRun(name, owner, delay)) {
                    leaseExpired();
                    JobStore.JobRow after = store.read(name);
                    return after == null ? null : after.nextFireAt();
                }
                return null;
            }
            return row.nextFireAt();
        } catch (DataAccessException ex) {
            context.outages().failed("read of job " + name, ex);
            return null;
        } finally {
            context.calls().end(call);
        }
    }

    @Override
    protected void runFire(Instant fire) {
        if (paused) {
            context.stats().skipped(name, SkipReason.PAUSED);
            return;
        }
        JobStore store = context.store();
        long start = System.nanoTime();
        Object call = beginCall(fire);
        if (call == null) {
            return;
        }
        try {
            liftFenceIfDue();
            boolean claimed = store.delayed()
                    .claimDelayedFire(
                            name, key(), fire, EARLY.plus(context.clock().error()), context.maxRunTime());
            context.stats().claimed(System.nanoTime() - start);
            context.outages().succeeded();
            if (!claimed) {
                context.stats().skipped(name, SkipReason.LOST);
                return;
            }
            if (!store.recordFire(name, key(), fire, context.fireHorizon())) {
                // Recorded before: never run a fire twice, even if the row said otherwise.
                store.delayed().completeDelayedFire(name, key(), delay);
                context.stats().skipped(name, SkipReason.LOST);
                return;
            }
        } catch (DataAccessException ex) {
            context.outages().failed("claim of job " + name, ex);
            context.stats().skipped(name, SkipReason.DATABASE_DOWN);
            return;
        } finally {
            context.calls().end(call);
        }
        context.stats().won(name);
        long began = System.nanoTime();
        @Nullable Throwable failure = null;
        try {
            runTask(fire);
        } catch (RuntimeException | Error ex) {
            failure = ex;
            throw ex;
        } finally {
            long tookNanos = System.nanoTime() - began;
            @Nullable Throwable outcome = failure;
            endOfRun(() -> {
                try {
                    if (!store.delayed().completeDelayedFire(name, key(), delay, fire, tookNanos, outcome)) {
                        leaseLostDuringRun();
                    }
                } catch (DataAccessException ex) {
                    context.outages().failed("completion of job " + name, ex);
                }
            });
        }
    }

    @Override
    public String jobSchedule() {
        return NamedJob.words(delay) + " after each run";
    }
}
