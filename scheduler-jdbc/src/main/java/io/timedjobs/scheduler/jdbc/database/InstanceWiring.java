package io.timedjobs.scheduler.jdbc.database;

import io.timedjobs.scheduler.Ticker;
import java.time.Clock;
import java.time.Duration;

/**
 * Not API: used by the auto-configuration and by a durable task engine that makes its own instance.
 * Stateless. The one place that builds an instance's parts from the cluster's settings: its
 * database clock, its row in the instances table (beating at the {@link LeaseRule}'s beat interval)
 * and its heartbeat.
 */
public final class InstanceWiring {

    private InstanceWiring() {}

    /** The database's clock, read against {@code clock} on the system ticker. */
    public static DatabaseClock databaseClock(ClusterDatabase database, Clock clock) {
        return new DatabaseClock(database.jdbc(), database.dialect(), clock, Ticker.system());
    }

    /**
     * This instance's row, under {@code name}, alive for {@code lease} after each beat; it beats at
     * the lease rule's beat interval, not every poll.
     */
    public static ClusterInstance instance(
            ClusterDatabase database, String name, Duration lease, Duration pollInterval) {
        return new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                name,
                lease,
                LeaseRule.beatInterval(lease, pollInterval),
                Sleeper.system());
    }

    /** The heartbeat of {@code instance}, polling every {@code pollInterval}, its outages logged once each. */
    public static ClusterHeartbeat heartbeat(ClusterInstance instance, DatabaseClock clock, Duration pollInterval) {
        return new ClusterHeartbeat(
                instance,
                clock,
                new OutageLog(ClusterHeartbeat.class, "the heartbeat of instance " + instance.name()),
                pollInterval);
    }
}
