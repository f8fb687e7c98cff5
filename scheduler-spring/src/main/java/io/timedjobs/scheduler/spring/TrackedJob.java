package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: one repeating job of a {@link LeaderFollowerTaskScheduler}, with what it takes to
 * show it (schedule, next and last run, outcome, lateness of its recent runs) and to act on it
 * (pause, resume, run once now). Workers record each run; readers take a {@link #snapshot()}.
 *
 * <p>Its figures cost a fixed amount of memory whatever the number of runs: counters, the last
 * run, a {@link LatenessWindow}, and the {@linkplain #fates() fates} of its latest {@value
 * #FATES_KEPT} fires (runs and skips), each with a bounded stack trace. Recording a run allocates
 * its fate only, and a failure's summary and stack trace.
 */
public final class TrackedJob {

    /** Fates kept per job: an hour of a job that fires every 18 seconds. */
    public static final int FATES_KEPT = 200;

    private final String name;
    private final String schedule;
    private final boolean sharedByInstances;
    private final boolean scheduledMethod;
    private final Runnable runOnce;
    private final Clock clock;

    /** Set once the engine accepted the job; null before, and for a job it refused. */
    private volatile @Nullable ScheduledFuture<?> future;

    private volatile boolean paused;

    /**
     * Whether the scheduler's shutdown began while the job was scheduled: from then on, its future
     * cancelled means that the shutdown dropped its next fire (a job cancelled before stays out).
     */
    private volatile boolean stoppedByShutdown;

    /** Whether the fire the shutdown dropped has its fate. Guarded by this. */
    private boolean dropRecorded;

    /**
     * Scheduled runs that began and are not recorded yet. Guarded by this. The engine drops a
     * running job's next fire before the run is recorded; its fate waits for the run's, to follow it.
     */
    private int runsUnrecorded;

    /**
     * The period of a fixed-rate job's fires, in nanoseconds; 0 for any other job. Set once, when
     * it is scheduled: a run's record then counts the fires the engine's misfire policy dropped.
     */
    private volatile long ratePeriodNanos;

    /**
     * Fires the trigger passed over during the run at hand, kept until the run is recorded, so that
     * their fate follows the run's: the first and last, and how many. Guarded by this.
     */
    private @Nullable Instant passedFirst;

    private @Nullable Instant passedLast;
    private long passedFires;

    // Guarded by this. Scheduled runs of one job never overlap (a run now may overlap one), so
    // this monitor is hardly contended by workers; it gives readers a consistent view.
    private final LatenessWindow window = new LatenessWindow();
    private long runs;
    private long failures;
    private long lastRunEpochMillis = -1L;
    private long lastDurationNanos;
    private @Nullable Outcome lastOutcome;
    private final JobFates fates = new JobFates(FATES_KEPT);

    /**
     * What each current run threw, by the worker that runs it, until {@link #record} reads it: a
     * run now may overlap a scheduled run, and each keeps its own failure.
     */
    private final Map<Thread, Throwable> pendingFailures = new HashMap<>(2);

    TrackedJob(
            String name,
            String schedule,
            boolean sharedByInstances,
            boolean scheduledMethod,
            Runnable runOnce,
            Clock clock) {
        this.name = name;
        this.schedule = schedule;
        this.sharedByInstances = sharedByInstances;
        this.scheduledMethod = scheduledMethod;
        this.runOnce = runOnce;
        this.clock = clock;
    }

    /** Returns the job's name: bean and method for {@code @Scheduled} methods. */
    public String name() {
        return name;
    }

    /** Returns the schedule in words. */
    public String schedule() {
        return schedule;
    }

    /** Returns whether the job is a {@code @Scheduled} method, one meter tag value per method. */
    public boolean isScheduledMethod() {
        return scheduledMethod;
    }

    /** Returns whether several instances share the job's fires. */
    public boolean isSharedByInstances() {
        return sharedByInstances;
    }

    /** Returns whether runs are skipped until {@link #resume()}. */
    public boolean isPaused() {
        return paused;
    }

    /** Skips the job's runs on this scheduler from now on; a run already started finishes. */
    public void pause() {
        paused = true;
    }

    /** Runs the job again at its next time. */
    public void resume() {
        paused = false;
    }

    /** Returns what runs the job's work once, outside its schedule. */
    Runnable runOnce() {
        return runOnce;
    }

    /**
     * Returns whether the job was cancelled or ended; not a job the shutdown stopped, which stays
     * listed with the fate of the fire it dropped.
     */
    boolean isEnded() {
        ScheduledFuture<?> f = future;
        return f != null && f.isDone() && !stoppedByShutdown;
    }

    /**
     * Marks the job as one the scheduler's shutdown stops, unless it ended before; called as the
     * shutdown begins, before it drops anything.
     */
    void shutdownBegins() {
        ScheduledFuture<?> f = future;
        if (f != null && !f.isDone() && !sharedByInstances) {
            stoppedByShutdown = true;
        }
    }

    /**
     * Records, once, the fire the shutdown dropped: a STOPPING fate at its nominal instant (the one
     * the engine's cancelled task was waiting for), when the shutdown cancelled the job. Called after
     * each step of the shutdown, by every read of the fates and after each run, as the engine drops a
     * running job's next fire only once its run ends, on its worker; never before a run that began is
     * recorded, so that the dropped fire's fate follows it.
     */
    synchronized void recordDropByShutdown() {
        ScheduledFuture<?> f = future;
        if (!stoppedByShutdown || dropRecorded || runsUnrecorded > 0 || f == null || !f.isCancelled()) {
            return;
        }
        dropRecorded = true;
        fates.skipped(clock.instant().plusNanos(f.getDelay(TimeUnit.NANOSECONDS)), JobFate.SkipReason.STOPPING);
    }

    void attach(ScheduledFuture<?> future) {
        this.future = future;
    }

    /** Notes that the job fires at a fixed rate, every {@code periodNanos}; called once, as it is scheduled. */
    void fixedRate(long periodNanos) {
        // a job shared by instances keeps its fates where the cluster records them
        this.ratePeriodNanos = sharedByInstances ? 0L : periodNanos;
    }

    /**
     * Records fires the job's trigger passed over because the fire before was still in hand (its run
     * outlasted them): a {@link JobFate.SkipReason#STILL_RUNNING} range from {@code first} to {@code
     * last}. Called by the worker as the engine computes the next fire, before the run is recorded:
     * the range then waits for the run's record, to follow it.
     */
    synchronized void passedOver(Instant first, Instant last, long fires) {
        if (runsUnrecorded == 0) {
            fates.skipped(first, last, fires, JobFate.SkipReason.STILL_RUNNING);
            return;
        }
        if (passedFirst == null) {
            passedFirst = first;
            passedFires = 0;
        }
        passedLast = last;
        passedFires += fires;
    }

    /** Notes that a scheduled run begins; called by the worker that runs it, when the gate lets it. */
    synchronized void entered() {
        runsUnrecorded++;
    }

    /** Records one run; called by the worker that ran it. */
    synchronized void record(long latenessNanos, long durationNanos, Outcome outcome) {
        if (runsUnrecorded > 0) {
            runsUnrecorded--;
        }
        runs++;
        if (outcome == Outcome.FAILED) {
            failures++;
        }
        lastOutcome = outcome;
        lastDurationNanos = durationNanos;
        lastRunEpochMillis = clock.millis() - TimeUnit.NANOSECONDS.toMillis(durationNanos);
        window.add(latenessNanos);
        Instant started = Instant.ofEpochMilli(lastRunEpochMillis);
        Throwable pending = pendingFailures.remove(Thread.currentThread());
        Throwable failure = outcome == Outcome.FAILED ? pending : null;
        if (outcome == Outcome.FAILED && failure == null) {
            failure = new IllegalStateException("The run failed; its exception did not reach the job's record");
        }
        Instant fireAt = started.minusNanos(latenessNanos);
        fates.ran(fireAt, started, durationNanos, failure);
        recordPassedOver(fireAt, latenessNanos + durationNanos);
        recordDropByShutdown();
    }

    /**
     * Records, after a run's fate, the fires passed over while it ran: those its trigger reported,
     * or, for a fixed-rate job, those between the run's fire and the next one the engine queued
     * (the misfire policy {@code SKIP} drops the fires a run outlasted). Guarded by this.
     *
     * @param sinceFireNanos the time from the run's nominal fire to its end, by the engine's ticker
     */
    private void recordPassedOver(Instant fireAt, long sinceFireNanos) {
        Instant first = passedFirst;
        Instant last = passedLast;
        if (first != null && last != null) {
            fates.skipped(first, last, passedFires, JobFate.SkipReason.STILL_RUNNING);
            passedFirst = null;
            passedLast = null;
            return;
        }
        long period = ratePeriodNanos;
        ScheduledFuture<?> f = future;
        if (period <= 0 || f == null || f.isDone()) {
            return;
        }
        // The next fire is a whole number of periods after this one; the ticker read between the
        // run's end and this one only shortens the gap by far less than half a period.
        long untilNext = sinceFireNanos + f.getDelay(TimeUnit.NANOSECONDS);
        long dropped = (untilNext + period / 2) / period - 1;
        if (dropped > 0) {
            fates.skipped(
                    fireAt.plusNanos(period),
                    fireAt.plusNanos(Math.multiplyExact(period, dropped)),
                    dropped,
                    JobFate.SkipReason.STILL_RUNNING);
        }
    }

    /** Keeps what a run threw for its fate; called by the worker that ran it, before {@link #record}. */
    synchronized void failed(Throwable failure) {
        pendingFailures.put(Thread.currentThread(), failure);
    }

    /**
     * Records a fire that came due and did not run; called by the worker that skipped it, before
     * the engine computes the next fire. The nominal fire is read from the job's schedule (the
     * engine's task still holds the due time of the fire at hand); the clock's now for work that
     * was not the scheduled fire (a run now).
     */
    synchronized void skipped(JobFate.SkipReason reason) {
        Instant now = clock.instant();
        ScheduledFuture<?> f = future;
        long dueInNanos = f == null ? 0L : f.getDelay(TimeUnit.NANOSECONDS);
        fates.skipped(dueInNanos < 0 ? now.plusNanos(dueInNanos) : now, reason);
    }

    /** Returns the fates of the job's latest fires here, latest first, at most {@value #FATES_KEPT}. */
    public synchronized List<JobFate> fates() {
        recordDropByShutdown();
        return fates.latestFirst();
    }

    /**
     * Returns the nominal fire from which {@link #fates()} tells every fire of the job here: the
     * oldest kept fate's, once older ones gave way to newer ones ({@value #FATES_KEPT} are kept);
     * null while every fate since the job was scheduled is kept. Before it, no fate means nothing
     * known, not a fire without a fate.
     */
    public synchronized @Nullable Instant fatesKnownFrom() {
        return fates.knownFrom();
    }

    /** Returns the job's figures now. */
    public JobSnapshot snapshot() {
        ScheduledFuture<?> f = future;
        Instant nextRun = null;
        if (f != null && !f.isDone()) {
            nextRun = clock.instant().plusNanos(f.getDelay(TimeUnit.NANOSECONDS));
        }
        synchronized (this) {
            long[] recent = window.recent();
            long[] sorted = LatenessWindow.sorted(recent);
            return new JobSnapshot(
                    name,
                    schedule,
                    sharedByInstances,
                    paused,
                    nextRun,
                    lastRunEpochMillis < 0 ? null : Instant.ofEpochMilli(lastRunEpochMillis),
                    lastOutcome,
                    lastDurationNanos,
                    runs,
                    failures,
                    recent,
                    LatenessWindow.quantile(sorted, 0.5),
                    LatenessWindow.quantile(sorted, 0.99),
                    sorted.length == 0 ? 0L : sorted[sorted.length - 1]);
        }
    }

    @Override
    public String toString() {
        return name + " (" + schedule + ")";
    }
}
