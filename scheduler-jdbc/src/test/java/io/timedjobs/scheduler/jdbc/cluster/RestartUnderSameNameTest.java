package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

/**
 * A process that died mid-run under a configured name, restarted under it: the run lease it left
 * ends as the new process registers, so another instance takes the job over at once instead of
 * waiting for the maximum run time while the name lives on.
 */
class RestartUnderSameNameTest {

    private static final Duration LONG = Duration.ofMinutes(10);

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldEndTheRunLeasesAProcessLeftUnderItsName(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(OncePerFireTest.createTables(kind), TableNames.defaults());
        ClusterInstance crashed = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "a", Duration.ofSeconds(30));
        ClusterInstance other = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "b", Duration.ofSeconds(30));
        crashed.register();
        other.register();
        JobStore crashedStore = new JobStore(database, crashed);
        JobStore otherStore = new JobStore(database, other);
        crashedStore
                .definitions()
                .register("job", new JobDefinition("cron", "* * * * * *", "UTC", Duration.ZERO), null, null);
        assertThat(crashedStore.acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN);

        ClusterInstance restarted = new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                "a",
                Duration.ofSeconds(30),
                Duration.ofSeconds(1),
                wait -> {}); // the crashed process beats no more
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        ClusterHeartbeat heartbeat = new ClusterHeartbeat(
                restarted, clock, new OutageLog(ClusterHeartbeat.class, "test"), Duration.ofSeconds(1));
        new ClusteredJobs(database, heartbeat, clock, Duration.ofSeconds(1), LONG, Duration.ofMinutes(1));
        restarted.register();

        assertThat(otherStore.acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN_OVER);
    }

    /**
     * A process restarted under the name of one that crashed within its lease says at INFO that it
     * takes the name over, and how long ago its predecessor last beat, and does not report the watch
     * of that predecessor's row as a silence of its own; a freeze of its own later is warned of
     * once, saying what to do.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTakeOverACrashedProcessNameAtInfoAndWarnOnlyOfItsOwnSilence(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(OncePerFireTest.createTables(kind), TableNames.defaults());
        Duration lease = Duration.ofSeconds(30);
        Duration poll = Duration.ofSeconds(1);
        new ClusterInstance(database.jdbc(), database.dialect(), database.tables(), "a", lease).register();

        ManualTicker ticker = new ManualTicker();
        ClusterInstance restarted = new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                "a",
                lease,
                LeaseRule.beatInterval(lease, poll),
                ticker::advance); // the watch of the crashed process's row takes two beat intervals
        DatabaseClock clock = new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), ticker);
        ClusterHeartbeat heartbeat = new ClusterHeartbeat(
                restarted, clock, new OutageLog(RestartUnderSameNameTest.class, "a"), poll, ticker);
        Logger logger = (Logger) LoggerFactory.getLogger("io.timedjobs.scheduler.jdbc");
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            heartbeat.poll(); // registers, watching the row for two beat intervals
            assertThat(heartbeat.registered()).isTrue();
            ticker.advance(poll);
            heartbeat.poll();

            assertThat(events.list)
                    .filteredOn(event -> event.getLevel() == Level.WARN)
                    .isEmpty();
            assertThat(events.list)
                    .filteredOn(event -> event.getFormattedMessage().contains("takes over the name"))
                    .singleElement()
                    .satisfies(event -> {
                        assertThat(event.getLevel()).isEqualTo(Level.INFO);
                        assertThat(event.getFormattedMessage()).containsPattern("last beat was \\d+ ms ago");
                    });

            events.list.clear();
            ticker.advance(lease.plusSeconds(1)); // frozen past the lease
            heartbeat.poll();
            ticker.advance(poll);
            heartbeat.poll();
            assertThat(events.list)
                    .filteredOn(event -> event.getLevel() == Level.WARN)
                    .singleElement()
                    .satisfies(event -> assertThat(event.getFormattedMessage())
                            .contains("longer than its lease")
                            .contains("timed-jobs.cluster.lease"));
        } finally {
            logger.detachAppender(events);
        }
    }
}
