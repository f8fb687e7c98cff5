package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What an instance believes of its own leases after a renewal that left a claim alone, as the poll
 * does with claims that still have most of their lease: the belief must not outlast the claim's
 * lease in the database, where another instance takes the claim over once it ends.
 */
class LeaseRenewalBoundTest {

    /** Lookahead 5 s, poll 1 s, lease 40 s: renewals every 10 s of the claims ending within 30 s. */
    private static final DurableTaskSettings SETTINGS = new DurableTaskSettings(
            Duration.ofSeconds(5),
            Duration.ofSeconds(1),
            Duration.ofSeconds(40),
            3,
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            100,
            2);

    /**
     * A claim 31 s from its end is not renewed (it does not end within 30 s); the instance then knows
     * its leases held for no longer than that claim's 31 s, not the 40 s of a renewed one.
     */
    @Test
    void shouldBelieveTheLeasesHeldNoLongerThanTheClaimTheRenewalLeftAlone() {
        DataSource dataSource = TestDatabases.newH2();
        DurableTaskStore store = DurableTestSupport.store(dataSource);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        store.upsert("mail", "k1", null, null, Instant.now());
        assertThat(store.claimDue("me", Duration.ZERO, SETTINGS.lease(), Set.of("mail"), 10))
                .hasSize(1);
        // As if claimed 9 s ago: 31 s of its lease left.
        jdbc.update("UPDATE timed_jobs_tasks SET lease_until = DATEADD(MILLISECOND, 31000, CURRENT_TIMESTAMP)");
        LeaseDeadline leases = new LeaseDeadline();
        DurableTaskPoll poll = new DurableTaskPoll(store, SETTINGS, Set.of("mail"), "me", leases);

        DurableTaskPoll.Outcome outcome = poll.run(0, true);

        assertThat(outcome.failure()).isNull();
        Map<String, Object> row =
                jdbc.queryForMap("SELECT DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, lease_until) AS left_ms"
                        + " FROM timed_jobs_tasks WHERE task_key = 'k1'");
        long rowLeftMillis = ((Number) row.get("LEFT_MS")).longValue();
        assertThat(rowLeftMillis).as("the claim was left alone").isBetween(25_000L, 31_000L);
        assertThat(Duration.ofNanos(leases.heldForNanos()).toMillis())
                .as("how long the instance believes its leases hold")
                .isLessThanOrEqualTo(rowLeftMillis);
    }
}
