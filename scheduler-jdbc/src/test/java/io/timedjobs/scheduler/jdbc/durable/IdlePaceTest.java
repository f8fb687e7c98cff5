package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * When an instance sleeps between polls and when it must not, on a manual ticker: the decisions
 * of {@link IdlePace}, each forced in the order that could lose a wake-up.
 */
class IdlePaceTest {

    /** Lookahead 5 s, poll 1 s, lease 30 s: an idle interval of 15 s. */
    private static final DurableTaskSettings SETTINGS = new DurableTaskSettings(
            Duration.ofSeconds(5),
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            3,
            Duration.ofSeconds(1),
            Duration.ofSeconds(10),
            100,
            2);

    private final ManualTicker ticker = new ManualTicker();
    private StatementLog log;
    private DurableTaskStore store;
    private IdlePace pace;

    @BeforeEach
    void setUp() {
        log = new StatementLog(TestDatabases.newH2());
        store = DurableTestSupport.store(log.dataSource());
        DurableTaskPoll poll = new DurableTaskPoll(store, SETTINGS, Set.of("mail"), "me", new LeaseDeadline());
        pace = new IdlePace(store, poll, SETTINGS, ticker);
        log.clear();
    }

    private int looks() {
        return log.containing("MIN(due_at)").size();
    }

    /**
     * Without a heartbeat that carries its look (H2 here), it looks on its own once the idle interval
     * (half the lease) and two polls have passed, and sleeps on.
     */
    @Test
    void shouldSleepForHalfALeaseAndTwoPollsWithNothingAboutThenLookOnce() {
        assertThat(pace.trySleep()).isTrue();
        assertThat(pace.ride())
                .as("the look a heartbeat carries while it sleeps")
                .isNotNull();
        for (int second = 1; second < 17; second++) {
            ticker.advance(Duration.ofSeconds(1));
            assertThat(pace.skip(true, false)).as("second %d", second).isTrue();
        }
        assertThat(looks()).isEqualTo(1);

        ticker.advance(Duration.ofSeconds(1));
        assertThat(pace.skip(true, false)).as("asleep again after one look").isTrue();
        assertThat(looks()).isEqualTo(2);
    }

    @Test
    void shouldStayAwakeWhileATaskIsDueWithinTheLookaheadAndAPollAndTryAgainOnlyLater() {
        store.upsert("mail", "soon", null, null, Instant.now().plusSeconds(4));

        assertThat(pace.trySleep()).isFalse();
        assertThat(pace.trySleep()).as("not looked again at once").isFalse();
        assertThat(looks()).isEqualTo(1);
        ticker.advance(Duration.ofMillis(3750)); // a quarter of the idle interval
        assertThat(pace.trySleep()).isFalse();
        assertThat(looks()).isEqualTo(2);
    }

    @Test
    void shouldStayAwakeWhileAnyTaskOfItsHandlersIsClaimed() {
        long id = store.upsert("mail", "far", null, null, Instant.now().plusSeconds(3600));
        store.claimOne("other", id, Duration.ofHours(2), Duration.ofSeconds(30));

        assertThat(pace.trySleep()).isFalse();
    }

    @Test
    void shouldIgnoreAnotherHandlersTasks() {
        store.upsert("report", "now", null, null, Instant.now());

        assertThat(pace.trySleep()).isTrue();
    }

    @Test
    void shouldWakeTheLookaheadAndAPollBeforeTheNextDueTask() {
        store.upsert("mail", "later", null, null, Instant.now().plusSeconds(10));

        assertThat(pace.trySleep()).isTrue();
        ticker.advance(Duration.ofSeconds(3));
        pace.skip(true, false);
        assertThat(looks())
                .as("asleep until the due time less the lookahead and a poll")
                .isEqualTo(1);
        ticker.advance(Duration.ofSeconds(2)); // past 10 s - 5 s - 1 s
        pace.skip(true, false);
        assertThat(looks()).as("looked again then, not after the idle interval").isEqualTo(2);
    }

    /** A wake-up asked for before the sleep began (an announcement read during the look) still wakes it. */
    @Test
    void shouldKeepAWakeUpRequestedAsItFellAsleep() {
        pace.wakeNow();
        assertThat(pace.trySleep()).isTrue();

        assertThat(pace.skip(true, false)).isFalse();
        assertThat(pace.sleeping()).isFalse();
    }

    @Test
    void shouldWakeAtARequestedInstantOnly() {
        assertThat(pace.trySleep()).isTrue();
        pace.wakeBy(ticker.read() + Duration.ofSeconds(3).toNanos());

        ticker.advance(Duration.ofSeconds(2));
        assertThat(pace.skip(true, false)).isTrue();
        ticker.advance(Duration.ofSeconds(1));
        assertThat(pace.skip(true, false)).isFalse();
        assertThat(looks()).as("woken without a look: a full poll follows").isEqualTo(1);
    }

    @Test
    void shouldWakeWhenItNoLongerListensOrHoldsAClaim() {
        assertThat(pace.trySleep()).isTrue();
        assertThat(pace.skip(false, false)).isFalse();

        assertThat(pace.trySleep()).isTrue();
        assertThat(pace.skip(true, true)).isFalse();
    }
}
