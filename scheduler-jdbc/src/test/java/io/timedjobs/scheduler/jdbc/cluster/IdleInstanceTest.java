package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an instance with nothing to do sends to its database: its heartbeat (which measures the
 * clock too on PostgreSQL), the clock's measurement elsewhere and, rarely, the prune of dead
 * instances' rows; nothing for durable tasks without a
 * handler, nothing for clustered jobs it does not have. Simulated minutes: a manual ticker paces
 * the heartbeat's poll, which the test calls once per poll interval.
 */
class IdleInstanceTest {

    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final int MINUTES = 10;

    /**
     * No job and no handler: at most 12 statements a minute, all of them the heartbeat's; fewer than
     * six (db-scheduler's idle poll at its defaults) where the heartbeat measures the clock.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldSendOnlyHeartbeatsWhenIdle(TestDatabases.Kind kind) {
        StatementLog log = new StatementLog(kind.newDatabase());
        ClusterDatabase database = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        ManualTicker ticker = new ManualTicker();
        DatabaseClock clock = new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), ticker);
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                "idle",
                LEASE,
                LeaseRule.beatInterval(LEASE, POLL),
                duration -> {});
        ClusterHeartbeat heartbeat =
                new ClusterHeartbeat(instance, clock, new OutageLog(IdleInstanceTest.class, "idle"), POLL, ticker);
        // the run history on, as by default: an instance with nothing to record prunes nothing
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        new ClusteredJobs(database, heartbeat, clock, POLL, Duration.ofMinutes(10), Duration.ofMinutes(1), history);
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .heartbeat(heartbeat, clock)
                .history(history)
                .build();
        engine.start();
        try {
            heartbeat.poll(); // registers
            log.clear();
            int polls = (int) (Duration.ofMinutes(MINUTES).toNanos() / POLL.toNanos());
            for (int i = 0; i < polls; i++) {
                ticker.advance(POLL);
                heartbeat.poll();
            }

            List<String> sent = log.executed();
            boolean folded = database.dialect().returningNow("UPDATE t SET c = 1") != null;
            assertThat(sent.size())
                    .as("statements in %d simulated minutes: %s", MINUTES, sent)
                    .isLessThanOrEqualTo(12 * MINUTES)
                    .isLessThanOrEqualTo((folded ? 5 : 7) * MINUTES);
            String instances = database.tables().instances();
            String clockQuery = database.dialect().clockQuery();
            assertThat(sent)
                    .as("only the instance's row and the clock")
                    .allMatch(sql -> sql.contains(instances) || sql.equals(clockQuery));
            List<String> beats = log.containing("UPDATE " + instances + " SET heartbeat_at");
            assertThat(beats).as("a beat every half lease").hasSizeBetween(MINUTES * 4 - 1, MINUTES * 4);
            long measurements = sent.stream()
                    .filter(sql -> sql.equals(clockQuery) || (folded && beats.contains(sql)))
                    .count();
            assertThat(measurements)
                    .as("the clock is still measured: with each beat, or every other beat on its own")
                    .isGreaterThanOrEqualTo(MINUTES * 2 - 1);
            assertThat(clock.error())
                    .as("the error widened by the drift since the last measurement, and no more")
                    .isLessThan(clock.lastMeasurement().error().plusMillis(2));
        } finally {
            engine.stop(Duration.ZERO);
        }
    }
}
