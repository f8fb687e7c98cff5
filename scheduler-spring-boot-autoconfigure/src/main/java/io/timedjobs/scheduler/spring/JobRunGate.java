package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.RunGate;

/**
 * Called by every worker of one {@link LeaderFollowerTaskScheduler} around each execution, so
 * thread-safe: the engine's {@link RunGate}. It holds executions back while the scheduler's
 * lifecycle is stopped (the {@link PauseGate}), and skips the executions of a {@linkplain
 * TrackedJob#pause() paused} job, which it recognises by the type of its work ({@link
 * JobRegistry.JobWork}). A skipped execution keeps the job's schedule, and neither the engine's
 * counts nor the job's figures see it.
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
        pauseGate.enter();
        TrackedJob job = JobRegistry.jobOf(work);
        if (job != null && job.isPaused()) {
            // not entered: the engine calls no exit, so leave the pause gate here
            pauseGate.exit();
            return false;
        }
        return true;
    }

    @Override
    public void exit(Object work) {
        pauseGate.exit();
    }
}
