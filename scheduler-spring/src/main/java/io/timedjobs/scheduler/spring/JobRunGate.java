package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.RunGate;

/**
 * Called by every worker of one {@link LeaderFollowerTaskScheduler} around each execution, so
 * thread-safe: the engine's {@link RunGate}. It holds executions back while the scheduler's
 * lifecycle is stopped (the {@link PauseGate}), and skips the executions of a {@linkplain
 * TrackedJob#pause() paused} job, which it recognises by the type of its work ({@link
 * JobRegistry.JobWork}). A skipped execution keeps the job's schedule, and neither the engine's
 * counts nor the job's figures see it; the job's {@linkplain TrackedJob#fates() fates} do, with
 * its reason. A task interrupted while it waits for the gate (its {@code
 * cancel(true)}, or {@code shutdownNow}) is skipped too.
 *
 * <p>Every task passes, those given to the engine directly included, as every task of Spring's
 * {@code ThreadPoolTaskScheduler} pauses with it.
 */
final class JobRunGate implements RunGate {

    private final PauseGate pauseGate;

    JobRunGate(PauseGate pauseGate) {
        this.pauseGate = pauseGate;
    }

    @Override
    public boolean enter(Object work) {
        boolean opened = pauseGate.enter();
        TrackedJob job = JobRegistry.jobOf(work);
        if (!opened || (job != null && job.isPaused())) {
            // not entered: the engine calls no exit, so leave the pause gate here. A task
            // interrupted while it waited (cancel(true), shutdownNow) does not run at all.
            pauseGate.exit();
            if (job != null) {
                job.skipped(opened ? JobFate.SkipReason.PAUSED : JobFate.SkipReason.STOPPING);
            }
            return false;
        }
        if (job != null) {
            job.entered();
        }
        return true;
    }

    @Override
    public void exit(Object work) {
        pauseGate.exit();
    }
}
