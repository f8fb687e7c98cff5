package io.timedjobs.scheduler.jdbc.durable;

/**
 * Thread-safe: until when this instance's claims are known to be held. The poll moves it each time
 * it renews the leases (a lease past the renewal's start, by {@link
 * io.timedjobs.scheduler.jdbc.database.LeaseRule}); the runner reads it when the database cannot be asked whether a claim still
 * holds, since nobody can take a claim over before its lease ends.
 *
 * <p>It also counts lapses: renewals that came after the leases had already run out (the process
 * was paused, or the database out of reach, for longer than the lease). Across a lapse another
 * instance may have taken this one's claims over; a runner compares the count at a task's start and
 * at its outcome to tell.
 */
final class LeaseDeadline {

    /** System.nanoTime() until which the leases hold; written by the polling thread only. */
    private volatile long heldUntilNanos = System.nanoTime();

    /** Whether a renewal happened yet: the first one is no lapse. Polling thread only. */
    private volatile boolean renewedOnce;

    /** Renewals that found the leases run out; written by the polling thread only. */
    private volatile long lapses;

    /** Records a renewal whose statement was sent at {@code sentNanos} (System.nanoTime()). */
    void renewed(long sentNanos, long leaseNanos) {
        if (renewedOnce && sentNanos - heldUntilNanos >= 0) {
            lapses = lapses + 1; // one writer: no lost update
        }
        renewedOnce = true;
        heldUntilNanos = sentNanos + leaseNanos;
    }

    /** Whether this instance's leases still hold, as far as the last renewal tells. */
    boolean held() {
        return System.nanoTime() - heldUntilNanos < 0;
    }

    /** Returns how many times the leases ran out before a renewal. */
    long lapses() {
        return lapses;
    }
}
