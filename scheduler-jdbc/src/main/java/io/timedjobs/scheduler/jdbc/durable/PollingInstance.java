package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;

/**
 * Immutable; the instance an engine polls on: its heartbeat, the database clock the heartbeat
 * measures, and whether the engine made them itself (then it starts and stops the heartbeat with
 * itself).
 */
record PollingInstance(ClusterHeartbeat heartbeat, DatabaseClock clock, boolean ownsHeartbeat) {

    /** This instance's name, as it appears in {@code claimed_by}. */
    String owner() {
        return heartbeat.instance().name();
    }
}
