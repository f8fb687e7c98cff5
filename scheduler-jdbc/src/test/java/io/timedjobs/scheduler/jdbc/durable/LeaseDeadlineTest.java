package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaseDeadlineTest {

    private static final long LEASE = 5_000_000_000L;

    /** Renewals within the lease are no lapse; one that comes after the lease ran out is. */
    @Test
    void shouldCountARenewalAfterTheLeaseRanOutAsALapse() {
        LeaseDeadline leases = new LeaseDeadline();
        long now = System.nanoTime();
        leases.renewed(now, now, LEASE);
        leases.renewed(now + LEASE / 2, now + LEASE / 2, LEASE);
        assertThat(leases.lapses()).isZero();
        assertThat(leases.held()).isTrue();

        leases.renewed(now + LEASE / 2 + LEASE + 1, now + LEASE / 2 + LEASE + 1, LEASE);
        assertThat(leases.lapses()).isEqualTo(1);
    }

    /**
     * A claim taken before the first renewal (a task scheduled here and claimed at once, as the
     * process starts) bounds the leases: a first renewal after its lease ran out is a lapse, and
     * one within it is none.
     */
    @Test
    void shouldCountAFirstRenewalAfterTheFirstClaimsLeaseRanOutAsALapse() {
        LeaseDeadline leases = new LeaseDeadline();
        long now = System.nanoTime();
        leases.claimed(now, LEASE);
        leases.claimed(now + LEASE, LEASE);
        assertThat(leases.held()).isTrue();
        leases.renewed(now + LEASE + 1, now + LEASE + 1, LEASE);
        assertThat(leases.lapses())
                .as("the first claim's lease ran out before it")
                .isEqualTo(1);

        LeaseDeadline inTime = new LeaseDeadline();
        inTime.claimed(now, LEASE);
        inTime.renewed(now + LEASE / 2, now + LEASE / 2, LEASE);
        assertThat(inTime.lapses()).isZero();
    }

    /** A first renewal with no claim before it is no lapse, however late: nothing was held. */
    @Test
    void shouldNotCountAFirstRenewalWithoutAClaimBeforeIt() {
        LeaseDeadline leases = new LeaseDeadline();
        assertThat(leases.held()).isFalse();
        leases.renewed(System.nanoTime() + 10 * LEASE, System.nanoTime() + 10 * LEASE, LEASE);
        assertThat(leases.lapses()).isZero();
    }

    /**
     * A renewal sent before the deadline but answered after it is a lapse: the process may have
     * frozen between reading the time and sending the statement, which then ran too late.
     */
    @Test
    void shouldCountARenewalAnsweredAfterTheDeadlineAsALapse() {
        LeaseDeadline leases = new LeaseDeadline();
        long now = System.nanoTime();
        leases.renewed(now, now, LEASE);
        leases.renewed(now + LEASE / 2, now + LEASE + 1, LEASE);
        assertThat(leases.lapses()).isEqualTo(1);
    }
}
