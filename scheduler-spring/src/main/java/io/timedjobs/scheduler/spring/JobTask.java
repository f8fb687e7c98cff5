package io.timedjobs.scheduler.spring;

/**
 * Run by the engine's worker threads, one execution at a time; immutable: the work of one repeating
 * job of a {@link LeaderFollowerTaskScheduler}, one object per schedule call. It carries the job's
 * {@link TrackedJob}, by which the {@link JobRunGate} and the job's figures recognise its runs.
 * One-shot tasks reach the engine as they are, decorated, with no object of this kind.
 */
final class JobTask implements Runnable, JobRegistry.JobWork {

    /** The task as scheduled, decorated. */
    private final Runnable task;

    private final TrackedJob job;

    JobTask(Runnable task, TrackedJob job) {
        this.task = task;
        this.job = job;
    }

    @Override
    public TrackedJob trackedJob() {
        return job;
    }

    @Override
    public void run() {
        try {
            task.run();
        } catch (RuntimeException | Error failure) {
            job.failed(failure);
            throw failure;
        }
    }

    @Override
    public String toString() {
        return task.toString();
    }
}
