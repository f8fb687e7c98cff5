package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; shared by the engine and what claims for it. The in-memory side of one engine: the
 * claimed tasks waiting for their due time, the workers that start them, whether the engine is
 * stopping, and the claim lock.
 */
final class ClaimedWork {

    /** Held by a poll, a claim after commit, and stop()'s release, so that no claim lands after it. */
    private final Object claimLock = new Object();

    /** Claimed tasks waiting in the in-memory engine. */
    private final ClaimedQueue queued;

    private final TaskStarts starts;
    private final int poolSize;

    private volatile boolean stopping;
    private volatile @Nullable LeaderFollowerScheduler workers;

    ClaimedWork(ClaimedQueue queued, TaskStarts starts, int poolSize) {
        this.queued = queued;
        this.starts = starts;
        this.poolSize = poolSize;
    }

    /** The lock under which claims are made and handed back. */
    Object claimLock() {
        return claimLock;
    }

    ClaimedQueue queued() {
        return queued;
    }

    /** The workers while the engine runs; null before its start and after its stop. */
    @Nullable
    LeaderFollowerScheduler workers() {
        return workers;
    }

    boolean stopping() {
        return stopping;
    }

    /** Whether claims may land now: the engine runs and is not stopping. */
    boolean open() {
        return !stopping && workers != null;
    }

    /** As the engine starts: makes its workers. */
    void begin() {
        stopping = false;
        workers = LeaderFollowerScheduler.builder()
                .poolSize(poolSize)
                .threadNamePrefix("timed-jobs-durable-")
                .executeExistingDelayedTasksAfterShutdown(false)
                .build();
    }

    /** As the engine stops: no claim is queued from now on. */
    void beginStop() {
        stopping = true;
    }

    /** Once the engine has stopped: the workers are gone. */
    void ended() {
        workers = null;
    }

    /** Queues a claimed task for its due time, unless the engine stops (its stop releases it). */
    void enqueue(ClaimedTask task) {
        LeaderFollowerScheduler engine = workers;
        if (engine == null || stopping) {
            return; // stop() releases it
        }
        starts.enqueue(task, engine, () -> !stopping);
    }
}
