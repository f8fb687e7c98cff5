package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.time.Duration;

/**
 * Immutable; any thread. Everything the clustered jobs of one instance share; {@link #pollInterval()}, {@link #maxRunTime()} and
 * {@link #fireHorizon()} read its {@link Timings}.
 */
public record JobContext(
        JobStore store,
        DatabaseClock clock,
        ClusterJobStats stats,
        OutageLog outages,
        Timings timings,
        FireNotices notices,
        SlowCalls calls) {

    /** How often a job looks at its row, how long a run may hold it, how far back a fire may be recorded. */
    public record Timings(Duration pollInterval, Duration maxRunTime, Duration fireHorizon) {}

    /** With no fire heard from other instances (each tries every fire at once), calls tracked here alone. */
    public JobContext(
            JobStore store,
            DatabaseClock clock,
            ClusterJobStats stats,
            OutageLog outages,
            Duration pollInterval,
            Duration maxRunTime,
            Duration fireHorizon) {
        this(
                store,
                clock,
                stats,
                outages,
                new Timings(pollInterval, maxRunTime, fireHorizon),
                FireNotices.none(),
                new SlowCalls());
    }

    public Duration pollInterval() {
        return timings.pollInterval();
    }

    public Duration maxRunTime() {
        return timings.maxRunTime();
    }

    public Duration fireHorizon() {
        return timings.fireHorizon();
    }
}
