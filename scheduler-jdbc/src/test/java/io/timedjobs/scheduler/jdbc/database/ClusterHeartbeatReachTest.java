package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * What the heartbeat tells readers of its {@link DatabaseReach}: a check at every poll while the
 * reach is read, none while it is not, and the failure of the last call. Simulated time: a manual
 * ticker paces the polls, which the test calls itself.
 */
class ClusterHeartbeatReachTest {

    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final ManualTicker ticker = new ManualTicker();
    private final Switch database = new Switch(TestDatabases.newH2());
    private StatementLog log;
    private ClusterHeartbeat heartbeat;

    @BeforeEach
    void start() {
        log = new StatementLog(database);
        ClusterDatabase cluster = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        new SchemaInitializer(cluster).initialize(SchemaInitializer.Mode.ALWAYS);
        DatabaseClock clock = new DatabaseClock(cluster.jdbc(), cluster.dialect(), Clock.systemUTC(), ticker);
        ClusterInstance instance = new ClusterInstance(
                cluster.jdbc(),
                cluster.dialect(),
                cluster.tables(),
                "reach",
                LEASE,
                LeaseRule.beatInterval(LEASE, POLL),
                duration -> {});
        heartbeat = new ClusterHeartbeat(
                instance, clock, new OutageLog(ClusterHeartbeatReachTest.class, "reach"), POLL, ticker);
        heartbeat.poll(); // registers
        log.clear();
    }

    private void pollAfter(Duration wait) {
        ticker.advance(wait);
        heartbeat.poll();
    }

    /** Unread, the heartbeat calls only at its own pace; read, it checks the database at every poll. */
    @Test
    void shouldCheckAtEveryPollOnlyWhileRead() {
        pollAfter(POLL);
        pollAfter(POLL);
        assertThat(log.executed()).isEmpty();

        heartbeat.reach().read();
        pollAfter(POLL);
        pollAfter(POLL);
        assertThat(log.containing("SELECT 1")).hasSize(2);
        assertThat(heartbeat.reach().read().sinceAnswer()).isEqualTo(Duration.ZERO);

        ticker.advance(DatabaseReach.WATCHED_FOR);
        log.clear();
        heartbeat.poll(); // a beat is due by now: it answers as a check would
        pollAfter(POLL);
        assertThat(log.containing("SELECT 1")).isEmpty();
    }

    /**
     * After an idle spell the heartbeat beat only at its own pace; the first read answers from the
     * last known state, not with the age of that slow beat, and the reads after it are held to the
     * poll bound from the moment watching began.
     */
    @Test
    void shouldMeasureTheFirstReadAfterAnIdleSpellFromTheWatchStart() {
        Duration idle = LeaseRule.beatInterval(LEASE, POLL).minus(POLL);
        pollAfter(idle);
        assertThat(log.executed()).isEmpty();

        DatabaseReach.Reading first = heartbeat.reach().read();
        assertThat(first.sinceAnswer()).isEqualTo(Duration.ZERO);
        assertThat(first.lastFailed()).isFalse();

        ticker.advance(POLL.multipliedBy(3)); // no poll: the heartbeat's thread is stuck, say
        assertThat(heartbeat.reach().read().sinceAnswer()).isEqualTo(POLL.multipliedBy(3));

        heartbeat.poll();
        assertThat(heartbeat.reach().read().sinceAnswer()).isEqualTo(Duration.ZERO);
    }

    /** A failed call is known to readers at once, with the age of the last answer; the next answer clears it. */
    @Test
    void shouldTellAFailedCallAndItsAge() {
        heartbeat.reach().read();
        pollAfter(POLL);
        database.down = true;
        pollAfter(POLL);

        DatabaseReach.Reading failed = heartbeat.reach().read();
        assertThat(failed.lastFailed()).isTrue();
        assertThat(failed.callInFlight()).isNull();
        assertThat(failed.sinceAnswer()).isEqualTo(POLL);
        assertThat(heartbeat.outages().inOutage()).isTrue();

        database.down = false;
        pollAfter(POLL);
        DatabaseReach.Reading back = heartbeat.reach().read();
        assertThat(back.lastFailed()).isFalse();
        assertThat(back.sinceAnswer()).isEqualTo(Duration.ZERO);
        assertThat(heartbeat.outages().inOutage()).isFalse();
    }

    /** A data source that refuses connections while {@link #down}. */
    private static final class Switch extends DelegatingDataSource {
        volatile boolean down;

        Switch(DataSource target) {
            super(target);
        }

        @Override
        public java.sql.Connection getConnection() throws SQLException {
            if (down) {
                throw new SQLException("connection refused (test)");
            }
            return super.getConnection();
        }
    }
}
