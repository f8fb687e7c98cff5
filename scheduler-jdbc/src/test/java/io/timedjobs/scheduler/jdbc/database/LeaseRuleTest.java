package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Test code only: the paces and bounds of {@link LeaseRule} at the defaults and at the edges. */
class LeaseRuleTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofSeconds(1);

    /** The heartbeat goes every half lease, but never more often than the poll interval. */
    @Test
    void shouldBeatEveryHalfLeaseButNotMoreOftenThanThePoll() {
        assertThat(LeaseRule.beatInterval(LEASE, POLL)).isEqualTo(Duration.ofSeconds(15));
        assertThat(LeaseRule.beatInterval(Duration.ofSeconds(3), Duration.ofSeconds(2)))
                .isEqualTo(Duration.ofSeconds(2));
    }

    /**
     * Claims are renewed every quarter lease, those that end within the other three quarters, so a
     * claim keeps at least half its lease; a dead instance's claims are rescued within lease plus poll.
     */
    @Test
    void shouldRenewEveryQuarterLeaseTheClaimsEndingWithinThreeQuartersAndRescueWithinLeasePlusPoll() {
        assertThat(LeaseRule.renewalInterval(LEASE)).isEqualTo(Duration.ofMillis(7500));
        assertThat(LeaseRule.renewalWindow(LEASE)).isEqualTo(Duration.ofMillis(22500));
        assertThat(LeaseRule.renewalWindow(LEASE).minus(LeaseRule.renewalInterval(LEASE)))
                .as("the least lease a claim has left as a renewal comes")
                .isEqualTo(LEASE.dividedBy(2));
        assertThat(LeaseRule.rescueBound(LEASE, POLL)).isEqualTo(Duration.ofSeconds(31));
    }

    /** An instance is taken over a lease after its last heartbeat; a graceful stop waits half a lease. */
    @Test
    void shouldTakeOverALeaseAfterTheLastHeartbeat() {
        assertThat(LeaseRule.takeOverAfter(LEASE)).isEqualTo(LEASE);
        assertThat(LeaseRule.stopWait(LEASE)).isEqualTo(Duration.ofSeconds(15));
        assertThat(LeaseRule.pruneAfter(LEASE)).isEqualTo(Duration.ofMinutes(5));
        assertThat(LeaseRule.pruneEvery(LEASE)).isEqualTo(Duration.ofSeconds(150));
    }

    /** A lease no longer than the poll interval, which renews it, is refused with both values named. */
    @Test
    void shouldRefuseALeaseNoLongerThanThePoll() {
        assertThatThrownBy(() -> LeaseRule.requireRenewable(POLL, POLL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT1S")
                .hasMessageContaining("poll interval");
    }
}
