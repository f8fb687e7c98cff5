package io.timedjobs.scheduler;

import org.jspecify.annotations.Nullable;

/**
 * Published and withdrawn only under the queue's lock; read by any thread without it. The plan of
 * the sleeping leader: the time at which it wakes up at the latest and moves every stripe into the
 * queue. While a plan is in force, a producer whose task needs no attention before that time
 * leaves it on its stripe and does not touch the lock.
 *
 * <p>Why a task left on a stripe is never forgotten: the producer pushes its task first and reads
 * the plan second ({@link #mustDrainNow}); the leader publishes its plan before it sleeps and, once
 * awake, withdraws the plan before it drains the stripes. All of these are volatile accesses, in one
 * total order. If the producer saw a plan in force, that plan's withdrawal comes after the push,
 * and the leader's drain after the withdrawal sees the task. If the withdrawal came before the
 * producer's read, the producer saw no plan and drains (or has the lock holder drain) itself.
 *
 * <p>{@link #inForce} is written last when publishing and first when withdrawing, so a reader that
 * sees it set reads a wake-up time published with it or after it; either is safe by the argument
 * above, for a later plan was published after an earlier one was withdrawn.
 */
final class WakePlan {

    /**
     * Whether a leader sleeps under this plan. Volatile: written last by {@link #publish}, first by
     * {@link #withdraw}, read first by producers.
     */
    private volatile boolean inForce;

    /** When the planning leader wakes up at the latest, in ticker time. Volatile; see inForce. */
    private volatile long wakeAt;

    /** The planning leader's thread, for a producer to nudge; or null. Volatile. */
    private volatile @Nullable Thread leader;

    /** Publishes the plan of a leader about to sleep until {@code wakeAt}. Under the queue's lock. */
    void publish(Thread leaderThread, long wakeAt) {
        this.wakeAt = wakeAt; // volatile write
        this.leader = leaderThread; // volatile write
        this.inForce = true; // volatile write, after the two above: see the class comment
    }

    /**
     * Withdraws the plan: the leader woke up, gave up its role, or lost it. Under the queue's lock;
     * whoever withdraws it drains the stripes afterwards (or has that done).
     */
    void withdraw() {
        inForce = false; // volatile write, first: see the class comment
        leader = null; // volatile write
    }

    /** Whether a plan is in force. Any thread; a volatile read. */
    boolean inForce() {
        return inForce; // volatile read
    }

    /**
     * Whether a task that needs attention at {@code attention} and was just pushed onto a stripe
     * must be moved into the queue now: when no plan is in force, or the task needs attention
     * before the plan's wake-up time (times compared by difference, so across wrap-around). Any
     * thread, after its push: see the class comment.
     */
    boolean mustDrainNow(long attention) {
        return !inForce // volatile read, LoadLoad: wakeAt is read after it
                || attention - wakeAt < 0; // volatile read
    }

    /** Returns the thread of the leader whose plan is in force, or null. Any thread; a volatile read. */
    @Nullable
    Thread leaderThread() {
        return leader; // volatile read
    }
}
