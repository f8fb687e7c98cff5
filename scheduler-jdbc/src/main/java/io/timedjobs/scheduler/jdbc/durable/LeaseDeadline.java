package io.timedjobs.scheduler.jdbc.durable;

/**
 * Thread-safe: until when this instance's claims are known to be held. Before the first renewal,
 * the first claim's lease bounds it; after, each renewal moves it to the renewal's start plus the
 * renewal window of {@link io.timedjobs.scheduler.jdbc.database.LeaseRule}. The runner reads it when
 * the database cannot be asked whether a claim still holds, since nobody can take a claim over
 * before its lease ends.
 *
 * <p>It also counts lapses: renewals answered after the deadline (the process was paused, or the
 * database out of reach, for longer than the leases were known to hold: three quarters of a lease
 * after a renewal). Across a lapse another instance may have taken this one's claims over; a runner
 * compares the count at a task's start and at its outcome to tell. A renewal before any claim is no
 * lapse: there was nothing to lose.
 *
 * <p>A claim whose row a start statement held locked as a renewal ran is left alone by it (the
 * renewal skips locked rows); should that start then fail, the claim keeps the lease of the renewal
 * before, up to a quarter of a lease shorter than this deadline. The next renewal catches it up.
 */
final class LeaseDeadline {

    /** System.nanoTime() until which the leases hold; written under this object's lock. */
    private volatile long heldUntilNanos = System.nanoTime();

    /** Whether the deadline bounds a claim yet: set by the first renewal or the first claim. */
    private volatile boolean bounding;

    /** Renewals that found the leases run out; written under this object's lock. */
    private volatile long lapses;

    /**
     * Records claims taken by a statement sent at {@code sentNanos} (System.nanoTime()) with a lease
     * of {@code leaseNanos}. Only the first one before any renewal moves the deadline: claims taken
     * later end later, and once renewals run, each renewal bounds every claim held.
     */
    void claimed(long sentNanos, long leaseNanos) {
        if (bounding) {
            return; // the common case, without the lock
        }
        synchronized (this) {
            if (!bounding) {
                heldUntilNanos = sentNanos + leaseNanos;
                bounding = true;
            }
        }
    }

    /**
     * Records a renewal whose statement was sent at {@code sentNanos} and answered at {@code
     * answeredNanos} (System.nanoTime()), after which every claim held ends {@code heldNanos} after
     * the sending at the earliest: the shortest lease any of them has, not the longest, or a claim
     * taken over would still look held here. It is a lapse when the answer came after the deadline:
     * the statement may have run only then (a process frozen between reading the time and sending),
     * and the claims it renewed may have been taken over before it.
     */
    synchronized void renewed(long sentNanos, long answeredNanos, long heldNanos) {
        if (bounding && answeredNanos - heldUntilNanos >= 0) {
            lapses = lapses + 1;
        }
        bounding = true;
        heldUntilNanos = sentNanos + heldNanos;
    }

    /** Whether this instance's leases still hold, as far as the last renewal or first claim tells. */
    boolean held() {
        return System.nanoTime() - heldUntilNanos < 0;
    }

    /** How long the leases are known to hold from now; negative once they may have run out. */
    long heldForNanos() {
        return heldUntilNanos - System.nanoTime();
    }

    /** Returns how many times the leases ran out before a renewal. */
    long lapses() {
        return lapses;
    }
}
