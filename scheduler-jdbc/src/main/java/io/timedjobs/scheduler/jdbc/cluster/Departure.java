package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; one per instance, in its {@link JobStore}: fires begin and end on the scheduler's
 * threads, the stop waits on the heartbeat's caller. Whether fires of clustered jobs may begin on
 * this instance, and the wait at a graceful stop for those going on.
 *
 * <p>Why: the others count an instance that left (its row removed) as dead and take over its run
 * leases. A stop that removed the row while a run went on, or before a fire that began just then
 * took its lease, let two runs of a job overlap. So {@link #leave} first stops new fires, then
 * waits, while the instance still beats, for those begun to end. The order of the two counts makes
 * it safe: a fire counts itself before it reads the flag, the stop sets the flag before it reads
 * the count, so either the fire sees the flag and gives up, or the stop sees the fire and waits.
 * The end of a run written on another thread counts too, from before its fire ends until the
 * write is done, so that the stop never removes the row or closes the database under it.
 *
 * <p>A stop marks the instance's row as leaving before it refuses its first fire ({@link
 * Peers#markLeaving}), so that another instance stopping at the same time does not count on this
 * one to run the fires it refuses; whether any other instance stays ({@link #othersStaying}) is
 * read at most once per given interval during a stop, whatever the last read found and the number
 * of jobs and fires: an instance that starts while every other waits in its stop gets the fires.
 */
final class Departure {

    /** The instances table as a stop sees it: this instance's mark, and the others who stay. */
    interface Peers {
        /** Marks this instance as leaving; may throw the database's exception. */
        void markLeaving();

        /** Returns whether another instance is alive and not leaving; may throw the database's exception. */
        boolean othersStaying();

        /** No instances table: no mark, and nobody else stays. */
        Peers NONE = new Peers() {
            @Override
            public void markLeaving() {}

            @Override
            public boolean othersStaying() {
                return false;
            }
        };
    }

    private volatile boolean leaving;
    private final AtomicInteger going = new AtomicInteger();
    private final Object monitor = new Object();
    private final Peers peers;

    /** What the last read of {@link Peers#othersStaying} found during this stop, and when; null: none yet. */
    private @Nullable Boolean staying;

    private long stayingReadAt;

    Departure() {
        this(Peers.NONE);
    }

    Departure(Peers peers) {
        this.peers = peers;
    }

    /** The departure of {@code instance}, marking its row and reading the others'. */
    static Departure of(ClusterInstance instance) {
        return new Departure(new Peers() {
            @Override
            public void markLeaving() {
                instance.markLeaving();
            }

            @Override
            public boolean othersStaying() {
                return instance.othersStaying();
            }
        });
    }

    /**
     * Begins a fire (its attempt and its run); false once the instance is leaving, when the fire must
     * not be tried. Each true is followed by {@link #endFire()}.
     */
    boolean beginFire() {
        going.incrementAndGet();
        if (leaving) {
            endFire();
            return false;
        }
        return true;
    }

    /**
     * Begins the write of a run's end, which may go on on another thread after its fire returned;
     * counted whether or not the instance is leaving, so that a stop waits for it. Followed by
     * {@link #endFire()}.
     */
    void beginEndOfRun() {
        going.incrementAndGet();
    }

    /** Ends what {@link #beginFire()} or {@link #beginEndOfRun()} began. */
    void endFire() {
        going.decrementAndGet();
        changed();
    }

    /** Wakes a stop waiting in {@link #leave} to look again (a run lease was given back). */
    void changed() {
        synchronized (monitor) {
            monitor.notifyAll();
        }
    }

    /**
     * No fire begins from now on; waits at most {@code timeout} for the fires going on to end and for
     * {@code idle} (no run lease held) to hold; returns whether both did.
     */
    boolean leave(Duration timeout, BooleanSupplier idle) throws InterruptedException {
        try {
            peers.markLeaving(); // before the first fire is refused: see the class comment
        } catch (RuntimeException ex) {
            // the database is away: the others may count on this instance a while, as on a dead one
        }
        leaving = true; // before the count is read: see the class comment
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (monitor) {
            while (going.get() > 0 || !idle.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(monitor, left);
            }
            return true;
        }
    }

    /**
     * During a stop, returns whether another instance stays to run the fires this one refuses: read
     * at most once per {@code reread}, whatever the last read found (one that stayed may begin its
     * own stop; one may start while nobody stayed). Throws the database's exception.
     */
    synchronized boolean othersStaying(Duration reread) {
        Boolean known = staying;
        long now = System.nanoTime();
        if (known != null && now - stayingReadAt < reread.toNanos()) {
            return known;
        }
        boolean read = peers.othersStaying();
        staying = read;
        stayingReadAt = now;
        return read;
    }

    /** As the instance registers again after a stop: fires may begin again. */
    void rejoin() {
        synchronized (this) {
            staying = null;
        }
        leaving = false;
    }
}
