package io.timedjobs.scheduler.spring;

import org.jspecify.annotations.Nullable;

/**
 * Run by the engine's worker threads, one object per schedule call: what the engine runs for a
 * task of a {@link LeaderFollowerTaskScheduler}. It passes the pause gate, skips the runs of a
 * paused job, and for a one-shot task reports a failure to the error handler (by default: logs it
 * and lets it reach the future). A repeating task's failures reach the error handler through the
 * engine.
 */
final class AdaptedTask implements Runnable, JobRegistry.JobWork {

    /** The task as scheduled, decorated. */
    private final Runnable task;

    /** The repeating job this task runs; null for a one-shot task. */
    private final @Nullable TrackedJob job;

    private final LeaderFollowerTaskScheduler owner;

    AdaptedTask(Runnable task, @Nullable TrackedJob job, LeaderFollowerTaskScheduler owner) {
        this.task = task;
        this.job = job;
        this.owner = owner;
    }

    @Override
    public @Nullable TrackedJob trackedJob() {
        return job;
    }

    @Override
    public void run() {
        PauseGate gate = owner.gate();
        gate.enter();
        try {
            TrackedJob tracked = job;
            if (tracked == null) {
                runOneShot();
            } else if (tracked.isPaused()) {
                tracked.skipping();
            } else {
                task.run();
            }
        } finally {
            gate.exit();
        }
    }

    private void runOneShot() {
        try {
            task.run();
        } catch (Throwable failure) {
            owner.handleOneShotFailure(failure);
        }
    }

    @Override
    public String toString() {
        return task.toString();
    }
}
