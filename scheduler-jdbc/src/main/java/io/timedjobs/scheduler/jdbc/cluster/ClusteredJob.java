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

    /** Why this instance refuses the job, once {@link #disabled}; null while it runs it. */
    private volatile @Nullable String refusedReason;

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
        refusedReason = reason;
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
                stats.skipped(name, reason);
                return;
            }
            JobStore.Lease lease = store.acquireLease(name, context.maxRunTime());
            stats.claimed(System.nanoTime() - start);
            context.outages().succeeded();
            if (lease == JobStore.Lease.BUSY) {
                stats.skipped(name, SkipReason.RUNNING);
                return;
            }
            if (lease == JobStore.Lease.TAKEN_OVER) {
                leaseExpired();
            }
        } catch (DataAccessException ex) {
            context.outages().failed("claim of job " + name, ex);
            stats.skipped(name, SkipReason.DATABASE_DOWN);
            return;
        }
        stats.won(name);
        try {
            runTask(fire);
        } finally {
            try {
                store.releaseLease(name);
            } catch (DataAccessException ex) {
                context.outages().failed("release of job " + name, ex);
            }
        }
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

    /** Returns why this instance refuses to run the job, or null while it runs it. */
    public @Nullable String refusedReason() {
        return refusedReason;
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
