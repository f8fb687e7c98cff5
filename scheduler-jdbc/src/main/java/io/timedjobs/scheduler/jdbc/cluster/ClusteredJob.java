package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.spring.NamedJob;
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
 * different threads, so the fields passed between them are volatile, never written concurrently.
 *
 * <p>One clustered {@code @Scheduled} job on this instance: both the {@link Trigger} and the
 * {@link Runnable} handed to the scheduler.
 *
 * <p>The trigger works in database time: it picks the next nominal fire instant and returns the
 * local instant at which it falls by the {@link DatabaseClock}. The run then asks the database
 * whether this instance gets that fire. When there is no fire to try (the job's row could not be
 * written yet, or a fixed-delay job runs elsewhere), the trigger returns a wake-up one poll
 * interval ahead and the run does nothing.
 *
 * <p>Definitions that change from one deploy to the next: the job's row names the one definition
 * that fires across the cluster; which one, and whether this instance takes the job over or stands
 * by, is its {@link DefinitionRollout}'s to decide.
 */
abstract class ClusteredJob implements SchedulingAwareRunnable, Trigger, NamedJob {

    private static final Log logger = LogFactory.getLog(ClusteredJob.class);

    protected final String name;
    protected final Runnable task;
    protected final JobContext context;

    /** Nominal fire (database time) the next run tries, or null for a wake-up without a fire. */
    private volatile @Nullable Instant pendingFire;

    /** Nominal fire of the last run that tried one, or null. */
    protected volatile @Nullable Instant lastFire;

    /** Whether the job's row is written and read. */
    private volatile boolean registered;

    /** Which definition of the job fires, and whether this instance stands by; see the class comment. */
    private final DefinitionRollout rollout;

    /** The catch-up of missed fires, or null for none (the default: they are skipped). */
    private volatile @Nullable CatchUpRun catchUp;

    /** A fire that found no room for its database call (see {@link SlowCalls}), tried again shortly; or null. */
    private volatile @Nullable Instant retryFire;

    /** Threads of the scheduler this job runs on, or 0 when unknown; see {@link SlowCalls#beginIfRoom}. */
    private volatile int workers;

    /**
     * Whether the end of this job's last run on this instance (its lease's release) is still being
     * written on a helper thread (see {@link SlowCalls#endOfRun}). Its lease is this instance's
     * until then, and a run may take again a lease its own instance holds: so no fire of the job
     * begins here meanwhile, or the late release would free the next run's lease for another
     * instance to run alongside it. Set by the run's worker, cleared by the helper.
     */
    private volatile boolean endPending;

    /** Whether the pending fire is a missed one that the catch-up tries. */
    private volatile boolean pendingMissed;

    /**
     * Whether this instance recorded the last fire it tried: true until it loses a fire to another
     * instance, and again once it records one. With {@link FirePlacement#STICKY}, one that lost
     * waits {@link FireNotices#BACKUP_DELAY} and tries only a fire it has not heard recorded (see
     * {@link FireNotices}).
     */
    private volatile boolean first = true;

    /** The fates of the fires that did not run, as this instance notices them. */
    final Fates fates = new Fates(this);

    /** This instance's definition of the job, and its key; set by the subclass's constructor. */
    private @Nullable JobDefinition definition;

    private @Nullable String key;

    protected ClusteredJob(String name, Runnable task, JobContext context) {
        this.name = name;
        this.task = task;
        this.context = context;
        this.rollout = new DefinitionRollout(this);
    }

    /** Sets this instance's definition of the job; called once by each subclass's constructor. */
    protected final void define(JobDefinition definition) {
        this.definition = definition;
        this.key = definition.key();
    }

    /** Returns this instance's definition of the job. */
    final JobDefinition definition() {
        return java.util.Objects.requireNonNull(definition, "define() not called");
    }

    /** Returns the key of this instance's definition. */
    protected final String key() {
        return java.util.Objects.requireNonNull(key, "define() not called");
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
        if ((!registered || rollout.standsBy()) && context.outages().inOutage()) {
            return wakeUp(); // the heartbeat's poll tells when the database is back
        }
        if (!registered || rollout.standsBy()) {
            try {
                if (registered) {
                    JobStore.JobRow row = context.store().read(name);
                    registered = row != null && rollout.settle(row);
                    fates.standingBy(rollout.standsBy());
                } else {
                    registered = rollout.settle(context.store()
                            .definitions()
                            .register(name, definition(), proposedAnchor(), proposedNextFire()));
                }
                context.outages().succeeded();
            } catch (DataAccessException ex) {
                context.outages().failed("registration of job " + name, ex);
            }
            if (!registered || rollout.standsBy()) {
                return wakeUp();
            }
        }
        Instant retry = retryFire;
        if (retry != null) {
            retryFire = null;
            pendingFire = retry;
            pendingMissed = false;
            return context.clock().localClock().instant().plus(SlowCalls.RETRY_STEP);
        }
        Instant fire = nextFire();
        CatchUpRun catching = catchUp;
        Instant missed = fire == null || catching == null ? null : catching.nextMissed(fire);
        pendingMissed = missed != null;
        if (catching != null && missed != null) {
            pendingFire = missed;
            return catching.waitBeforeNext()
                    ? context.clock().localClock().instant().plus(context.pollInterval())
                    : context.clock().notBeforeLocal(missed);
        }
        pendingFire = fire;
        if (fire == null) {
            return wakeUp();
        }
        Instant at = context.clock().notBeforeLocal(fire); // never early
        return at.plus(FireNotices.BACKUP_DELAY.multipliedBy(backupSteps(fire)));
    }

    /**
     * Returns how many backup steps this instance leaves {@code fire} to the instances before it
     * (see {@link FireNotices#backupSteps}); 0 for a job that catches up, whose fires every
     * instance tries at once.
     */
    final int backupSteps(Instant fire) {
        return catchUp == null ? context.notices().backupSteps(name, fire, first) : 0;
    }

    private @Nullable Instant wakeUp() {
        pendingFire = null;
        return context.clock().localClock().instant().plus(context.pollInterval());
    }

    @Override
    public final void run() {
        Instant fire = pendingFire;
        if (fire == null) {
            return;
        }
        CatchUpRun catching = catchUp;
        if (pendingMissed && catching != null) {
            if (endPending) {
                catching.deferred(); // the last run's lease is not given back yet: a poll later
            } else if (!context.outages().inOutage()) { // else listed again once the outage ends
                // a missed fire: the schedule's own fires go on from where they were
                if (!unlessLeaving(() -> catching.run(fire))) {
                    catching.deferred(); // kept, and tried again a poll later, not at once
                }
            }
            return;
        }
        lastFire = fire;
        if (context.outages().inOutage()) {
            // Known to be away: no more workers wait on it, so local jobs keep theirs.
            context.stats().skipped(name, SkipReason.DATABASE_DOWN);
            fates.down(fire);
            return;
        }
        if (endPending) {
            // The last run's end is still being written: this fire waits for it, a moment later.
            retryFire = fire;
            return;
        }
        if (!unlessLeaving(() -> runFire(fire))) {
            fates.stopping(fire);
        }
    }

    /**
     * Tries a fire (the schedule's or a missed one) unless the instance is leaving: the others
     * count it as dead from its last beat on, so a stop waits for the fires begun (see Departure).
     * Returns false when it did not try.
     */
    private boolean unlessLeaving(Runnable attempt) {
        Departure departure = context.store().departure();
        if (!departure.beginFire()) {
            return false;
        }
        try {
            attempt.run();
        } finally {
            departure.endFire();
        }
        return true;
    }

    /** Stands by while another definition fires, saying so once. */
    protected final void standBy(JobStore.JobRow row) {
        pendingFire = null;
        rollout.standBy(row);
    }

    /** Returns the anchor to record when this instance defines the job now; null but for fixed rate. */
    protected @Nullable Instant proposedAnchor() {
        return null;
    }

    /** Returns the next fire to record when this instance defines the job now; null but for fixed delay. */
    protected @Nullable Instant proposedNextFire() {
        return null;
    }

    /**
     * Takes in the row once it holds this instance's definition; returns false if it should be
     * looked at again later.
     */
    protected boolean accept(JobStore.JobRow row) {
        return true;
    }

    /** Returns the next nominal fire to try, in database time, or null to look again later. */
    protected abstract @Nullable Instant nextFire();

    /** Tries the fire and runs the task if this instance gets it. */
    protected abstract void runFire(Instant fire);

    /**
     * Notes the fire's database call beginning, if there is room for it (see {@link
     * SlowCalls#beginIfRoom}), and returns its token; else returns null, and the fire is tried again
     * in a moment, or skipped as {@code database-down} when a call is also suspect.
     */
    protected final @Nullable Object beginCall(Instant fire) {
        Object call = context.calls().beginIfRoom(workers);
        if (call == null) {
            if (context.calls().skipOnSuspicion(name, context.store().instanceName())) {
                // every worker but one waits on a database likely away: no more wait on it
                context.stats().skipped(name, SkipReason.DATABASE_DOWN);
                fates.down(fire);
            } else {
                retryFire = fire; // every worker but one waits on the database: try again in a moment
            }
        }
        return call;
    }

    /** Returns the threads of the scheduler this job runs on, or 0 for no limit. */
    protected final int workers() {
        return workers;
    }

    /**
     * Writes the end of a run, off this worker if the others wait on the database (see {@link
     * SlowCalls#endOfRun}); no fire of the job begins on this instance, and a stop waits, until it is
     * written. Called by the run's worker before its fire returns.
     */
    protected final void endOfRun(Runnable write) {
        Departure departure = context.store().departure();
        endPending = true;
        departure.beginEndOfRun();
        context.calls().endOfRun(workers, write, () -> {
            endPending = false;
            departure.endFire();
        });
    }

    /**
     * While the row fences off instances of schema version 1 after a definition change, tries to
     * lift the fence once per fire: it goes once none of them is alive.
     */
    protected final void liftFenceIfDue() {
        rollout.liftFenceIfDue();
    }

    /**
     * Logs a run that ended after its run lease was taken over (this instance was paused or cut off
     * for longer than the lease, or ran past the maximum run time): its end changed nothing.
     */
    protected final void leaseLostDuringRun() {
        logger.warn("Run of clustered job " + name + " on " + context.store().instanceName()
                + " ended after its run lease was taken over (a pause or an outage longer than the lease, or a run"
                + " past " + context.maxRunTime() + "); another instance may have run the job meanwhile, and this"
                + " late end was refused: it does not move the job's schedule. If its runs take that long, raise"
                + " timed-jobs.cluster.max-run-time above them; if the instance was paused, see the warning of"
                + " its silence");
    }

    /** Runs the task on this thread, with {@link ClusteredJobs#currentFire()} telling it which fire it runs. */
    protected final void runTask(Instant fire) {
        runTask(fire, false);
    }

    /** As {@link #runTask(Instant)}, saying whether the fire is a missed one. */
    final void runTask(Instant fire, boolean missed) {
        CurrentClusteredRun.run(name, fire, missed, task);
    }

    /** Sets the threads of the scheduler this job runs on (0: unknown); before it is scheduled. */
    final void workers(int threads) {
        workers = threads;
    }

    /** Whether the job catches up missed fires (it has a catch-up policy). */
    final boolean catchesUp() {
        return catchUp != null;
    }

    /** Notes whether this instance recorded the last fire it tried (see {@link #first}). */
    final void recordedLast(boolean recorded) {
        first = recorded;
    }

    /** Sets what the job does with missed fires (see {@link CatchUpRun#of}); once, before it is scheduled. */
    final void catchUp(CatchUpPolicy policy) {
        catchUp = CatchUpRun.of(this, policy);
    }

    /**
     * Returns the step from one nominal fire of the job to the next (null after the last), for
     * listing missed fires; null for a kind whose fires a downtime cannot miss (fixed delay).
     */
    protected java.util.function.@Nullable UnaryOperator<@Nullable Instant> nominalFires() {
        return null;
    }

    /** Counts and logs a run lease taken over from a dead or overrunning holder. */
    protected final void leaseExpired() {
        context.stats().leaseExpired();
        logger.warn("Run lease of clustered job " + name + " expired (its holder died or ran past "
                + context.maxRunTime() + "); taken over by " + context.store().instanceName() + ". If its holder"
                + " is alive, its run outlasted timed-jobs.cluster.max-run-time: raise it above the job's longest"
                + " run, or the job may run twice at once");
    }

    /**
     * Returns why this instance does not fire the job: another definition of it fires (see the class
     * comment); null while this instance fires it, or may.
     */
    public @Nullable String refusedReason() {
        return rollout.refusedReason();
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
