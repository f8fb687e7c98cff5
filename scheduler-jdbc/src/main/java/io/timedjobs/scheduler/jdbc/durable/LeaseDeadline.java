package io.timedjobs.scheduler.jdbc.durable;

/**
 * Thread-safe: until when this instance's claims are known to be held. The poll moves it each time
 * it renews the leases; the runner reads it when the database cannot be asked whether a claim still
 * holds, since nobody can take a claim over before its lease ends.
 */
final class LeaseDeadline {

    /** System.nanoTime() until which the leases hold. */
    private volatile long heldUntilNanos = System.nanoTime();

    /** Records a renewal whose statement was sent at {@code sentNanos} (System.nanoTime()). */
    void renewed(long sentNanos, long leaseNanos) {
        heldUntilNanos = sentNanos + leaseNanos;
    }

    /** Whether this instance's leases still hold, as far as the last renewal tells. */
    boolean held() {
        return System.nanoTime() - heldUntilNanos < 0;
    }
}
