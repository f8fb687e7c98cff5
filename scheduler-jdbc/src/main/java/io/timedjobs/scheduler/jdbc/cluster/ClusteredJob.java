package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.spring.NamedJob;
import java.time.Duration;
import java.time.Instant;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.SchedulingAwareRunnable;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.TriggerContext;

/**
 * Called by one scheduler, one call at a time: {@link #nextExecution(TriggerContext)} and {@link
 * #run()} alternate (a trigger task's next execution is computed after its run), possibly on
 * different threads, so the fields that pass between them are volatile and never written
 * concurrently.
 *
 * <p>One clustered {@code @Scheduled} job on this instance: both the {@link Trigger} and the
 * {@link Runnable} handed to the scheduler.
 *
 * <p>The trigger works in database time: it picks the next nominal fire instant and returns the
 * local instant at which it falls by the {@link DatabaseClock}. The run then asks the database
 * whether this instance gets that fire. When there is no fire to try (the job's row could not be
 * written yet, or a fixed-delay job runs elsewhere), the trigger returns a wake-up one poll
 * interval ahead and the run does nothing.
 */
abstract class ClusteredJob implements SchedulingAwareRunnable, Trigger, NamedJob {

    private static final Log logger = LogFactory.getLog(ClusteredJob.class);

    /** Nominal fire of the clustered run under way on this thread; see {@link #currentFire()}. */
    private static final ThreadLocal<Instant> CURRENT_FIRE = new ThreadLocal<>();

    /** Everything the jobs of one instance share. */
    public record Context(
            JobStore store,
            DatabaseClock clock,
            ClusterJobStats stats,
            OutageLog outages,
            Duration pollInterval,
            Duration maxRunTime,
            Duration fireHorizon) {}

    protected final String name;
    protected final Runnable task;
    protected final Context context;

    /** Nominal fire (database time) the next run tries, or null for a wake-up without a fire. */
    private volatile @Nullable Instant pendingFire;

    /** Nominal fire of the last run that tried one, or null. */
    protected volatile @Nullable Instant lastFire;

    /** Whether the job's row is written and read. */
    private volatile boolean registered;

    /** Whether this instance must not run the job at all (its definition conflicts with the row's). */
    private volatile boolean disabled;

    protected ClusteredJob(String name, Runnable task, Context context) {
        this.name = name;
        this.task = task;
        this.context = context;
    }

    /** Returns the job's name. */
    public String name() {
        return name;
    }

    @Override
    public String jobName() {
        return name;
    }

    @Override
    public Runnable unscheduledRun() {
        return task;
    }

    @Override
    public boolean sharedByInstances() {
        return true;
    }

    @Override
    public final @Nullable Instant nextExecution(TriggerContext triggerContext) {
        if (!registered && context.outages().inOutage()) {
            return wakeUp(); // the heartbeat's poll tells when the database is back
        }
        if (!registered) {
            try {
                registered = register();
                context.outages().succeeded();
            } catch (DataAccessException ex) {
                context.outages().failed("registration of job " + name, ex);
            }
            if (!registered) {
                return wakeUp();
            }
        }
        if (disabled) {
            return null;
        }
        Instant fire = nextFire();
        pendingFire = fire;
        return fire == null ? wakeUp() : context.clock().notBeforeLocal(fire); // never early
    }

    private @Nullable Instant wakeUp() {
        pendingFire = null;
        if (disabled) {
            return null;
        }
        return context.clock().localClock().instant().plus(context.pollInterval());
    }

    @Override
    public final void run() {
        Instant fire = pendingFire;
        if (fire == null) {
            return;
        }
        lastFire = fire;
        if (context.outages().inOutage()) {
            // Known to be away: no worker waits on it, so local jobs keep their workers.
            context.stats().skipped(SkipReason.DATABASE_DOWN);
            return;
        }
        runFire(fire);
    }

    /**
     * Writes the job's row if needed and checks this instance's definition against it; returns
     * false if it should be tried again later. Calls {@link #disable(String)} on a conflict.
     */
    protected abstract boolean register();

    /** Returns the next nominal fire to try, in database time, or null to look again later. */
    protected abstract @Nullable Instant nextFire();

    /** Tries the fire and runs the task if this instance gets it. */
    protected abstract void runFire(Instant fire);

    /** Stops this instance from running the job, logging why once. */
    protected final void disable(String reason) {
        disabled = true;
        logger.error("Clustered job " + name + " will not run on this instance: " + reason);
    }

    /**
     * The fire protocol of cron and fixed-rate jobs: record the fire (whoever records it runs it;
     * nobody records it while the job is paused), take the run lease (so that runs never overlap across instances), run, release.
     */
    protected final void recordAndRun(Instant fire) {
        JobStore store = context.store();
        ClusterJobStats stats = context.stats();
        long start = System.nanoTime();
        try {
            if (!store.recordFire(name, fire, context.fireHorizon())) {
                stats.claimed(System.nanoTime() - start);
                boolean tooOld = fire.isBefore(context.clock().now().minus(context.fireHorizon()));
                // The reason costs a read only on this path: a fire that is recorded costs none.
                SkipReason reason =
                        tooOld ? SkipReason.HORIZON : store.isPaused(name) ? SkipReason.PAUSED : SkipReason.LOST;
                context.outages().succeeded();
                stats.skipped(reason);
                return;
            }
            JobStore.Lease lease = store.acquireLease(name, context.maxRunTime());
            stats.claimed(System.nanoTime() - start);
            context.outages().succeeded();
            if (lease == JobStore.Lease.BUSY) {
                stats.skipped(SkipReason.RUNNING);
                return;
            }
            if (lease == JobStore.Lease.TAKEN_OVER) {
                leaseExpired();
            }
        } catch (DataAccessException ex) {
            context.outages().failed("claim of job " + name, ex);
            stats.skipped(SkipReason.DATABASE_DOWN);
            return;
        }
        stats.won();
        try {
            runTask(fire);
        } finally {
            try {
                if (!store.releaseLease(name)) {
                    leaseLostDuringRun();
                }
            } catch (DataAccessException ex) {
                context.outages().failed("release of job " + name, ex);
            }
        }
    }

    /**
     * Logs a run that ended after its run lease was taken over (this instance was paused or cut off
     * for longer than the lease, or ran past the maximum run time): its end changed nothing.
     */
    protected final void leaseLostDuringRun() {
        logger.warn("Run of clustered job " + name + " on " + context.store().instanceName()
                + " ended after its run lease was taken over (a pause or an outage longer than the lease, or a run"
                + " past " + context.maxRunTime() + "); another instance may have run the job meanwhile, and this"
                + " late end was refused: it does not move the job's schedule");
    }

    /** Returns the nominal fire (database time) of the clustered run under way on this thread, or null. */
    public static @Nullable Instant currentFire() {
        return CURRENT_FIRE.get();
    }

    /** Runs the task on this thread, with {@link #currentFire()} telling it which fire it runs. */
    protected final void runTask(Instant fire) {
        CURRENT_FIRE.set(fire);
        try {
            task.run();
        } finally {
            CURRENT_FIRE.remove();
        }
    }

    /** Counts and logs a run lease taken over from a dead or overrunning holder. */
    protected final void leaseExpired() {
        context.stats().leaseExpired();
        logger.warn("Run lease of clustered job " + name + " expired (its holder died or ran past "
                + context.maxRunTime() + "); taken over by " + context.store().instanceName());
    }

    /** Returns the qualifier of the scheduler the job asked for, so that Spring's router keeps it there. */
    @Override
    public @Nullable String getQualifier() {
        return task instanceof SchedulingAwareRunnable aware ? aware.getQualifier() : null;
    }

    @Override
    public boolean isLongLived() {
        return task instanceof SchedulingAwareRunnable aware && aware.isLongLived();
    }

    @Override
    public String toString() {
        return name;
    }
}
