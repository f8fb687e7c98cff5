package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
}
