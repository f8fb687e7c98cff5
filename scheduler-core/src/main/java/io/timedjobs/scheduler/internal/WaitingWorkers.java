package io.timedjobs.scheduler.internal;

import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: touched only by LeaderFollowerDelayQueue under its lock, which it never takes or
 * lets go itself (the plan it publishes is read by any thread: see WakePlan). The workers waiting
 * in take(): the leader, its wake-up time and plan, and the followers; and who is woken when. How
 * a worker sleeps and leaves, letting go of the lock, is the queue's, and so is the argument that
 * no wake-up is lost (see LeaderFollowerDelayQueue.take).
 */
final class WaitingWorkers {

    /** The sleeping leader's wake-up time, published before it sleeps, withdrawn in dropLeader. */
    private final WakePlan plan;

    /**
     * The worker designated to wait for the task at the head of the queue, or null when there is
     * none.
     *
     * <p>A worker that finds this field empty and the head not yet due takes the role ({@link
     * #lead}). Leadership can be lost: the thread that inserts a new head clears this field and
     * unparks the old leader, whose timeout is now too long ({@link #taskInserted}); so a worker
     * may only clear it if it holds the role ({@link #resign}).
     */
    private @Nullable PoolThread leader;

    /** When the current leader wakes up on its own, in ticker time. */
    private long leaderWakeAt;

    /** Workers sleeping without a timeout. */
    private final Followers followers = new Followers();

    WaitingWorkers(WakePlan plan) {
        this.plan = plan;
    }

    /** Whether a worker holds the leader role. */
    boolean hasLeader() {
        return leader != null;
    }

    /** Returns the leader's thread, or null. */
    @Nullable
    Thread leaderThread() {
        PoolThread l = leader;
        return l == null ? null : l.thread;
    }

    /**
     * Gives the leader role to a worker about to sleep until {@code wakeAt}, and publishes its plan
     * (see WakePlan): the plan goes out before the worker lets go of the lock.
     */
    void lead(PoolThread me, long wakeAt) {
        leader = me;
        leaderWakeAt = wakeAt;
        plan.publish(me.thread, wakeAt);
    }

    /**
     * Gives up the role for a leader that woke up, if it still holds it; the caller drains the
     * stripes after this (see WakePlan).
     */
    void resign(PoolThread me) {
        if (leader == me) {
            dropLeader();
        }
    }

    /**
     * Takes the leader role away or gives it up, and withdraws its plan. The stripes are drained
     * after it (by the old leader, on release, or by the worker it wakes).
     */
    private void dropLeader() {
        leader = null;
        plan.withdraw();
    }

    /**
     * Wakes whoever must re-plan for a task just added to due order, which needs attention at
     * {@code attention}: the leader if it would wake later (it loses the role), or, with no leader
     * and the queue empty before, one follower. Otherwise a worker is already on its way back into
     * take() and will see the task.
     */
    void taskInserted(long attention, boolean wasEmpty) {
        if (leader != null) {
            if (attention - leaderWakeAt < 0) { // due before the leader wakes: it must re-plan
                wakeLeader();
            }
        } else if (wasEmpty) {
            followers.wakeLast(); // nobody is waiting for anything yet
        }
    }

    /** Takes the role from the leader, if any, and wakes it to re-plan; false if none. */
    boolean wakeLeader() {
        PoolThread l = leader;
        if (l == null) {
            return false;
        }
        dropLeader();
        LockSupport.unpark(l.thread);
        return true;
    }

    /** Wakes the most recent follower, if any. */
    void wakeFollower() {
        followers.wakeLast();
    }

    /** Wakes every sleeping worker. */
    void wakeAll() {
        wakeLeader();
        followers.wakeAll();
    }

    /** Registers a worker about to sleep as a follower. */
    void addFollower(PoolThread me) {
        followers.add(me);
    }

    /** Deregisters a follower that woke up still registered: not by a waker. */
    void removeFollower(PoolThread me) {
        followers.remove(me);
    }

    /**
     * For a worker leaving take(): wakes up to {@code helpers} followers to claim from a new batch
     * (they claim without the lock, so now), and deregisters the successor to a vacant leader role
     * if {@code successor} is asked for, for the caller to unpark once it has let go of the lock.
     *
     * @return the successor to unpark, or null
     */
    @Nullable
    PoolThread handOn(boolean successor, int helpers) {
        PoolThread next = successor ? followers.pollLast() : null;
        followers.wakeHelpers(helpers);
        return next;
    }
}
