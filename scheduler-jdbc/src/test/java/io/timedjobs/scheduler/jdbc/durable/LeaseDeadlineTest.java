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
        leases.renewed(now, LEASE);
        leases.renewed(now + LEASE / 2, LEASE);
        assertThat(leases.lapses()).isZero();
        assertThat(leases.held()).isTrue();

        leases.renewed(now + LEASE / 2 + LEASE + 1, LEASE);
        assertThat(leases.lapses()).isEqualTo(1);
    }
}
