package io.timedjobs.scheduler.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Called once, at start-up: binds the meters of clustered jobs, which read the counters
 * scheduler-jdbc keeps (it imports nothing from Micrometer).
 *
 * <p>Tagged {@code scheduler=<bean name>} of the scheduler the jobs run on:
 *
 * <ul>
 *   <li>{@code scheduler.cluster.fires.won}: fires this instance recorded and ran;
 *   <li>{@code scheduler.cluster.fires.skipped}, tag {@code reason} = {@code lost} (another instance
 *       was first), {@code database-down}, {@code horizon} (too old), {@code running} (the previous
 *       run still holds the run lease), {@code paused} (the job is paused on every instance);
 *   <li>{@code scheduler.cluster.run-lease.expiries}: run leases taken over from a dead or
 *       overrunning holder;
 *   <li>{@code scheduler.cluster.claim}: round trip of each claim to the database;
 *   <li>{@code scheduler.cluster.clock.offset}: database clock minus this instance's clock, and
 *       {@code scheduler.cluster.clock.error}: how far that measurement may be off;
 *   <li>{@code scheduler.cluster.database.failures}: failed database calls of clustered jobs.
 * </ul>
 */
final class ClusterMetrics {

    private ClusterMetrics() {}

    static void bind(MeterRegistry registry, String schedulerName, ClusteredJobs jobs, DatabaseClock clock) {
        Tags tags = Tags.of(SchedulerMetrics.SCHEDULER_TAG, schedulerName);
        ClusterJobStats stats = jobs.stats();
        FunctionCounter.builder("scheduler.cluster.fires.won", stats, ClusterJobStats::firesWon)
                .description("Fires of clustered jobs this instance recorded and ran")
                .tags(tags)
                .register(registry);
        for (ClusterJobStats.SkipReason reason : ClusterJobStats.SkipReason.values()) {
            FunctionCounter.builder("scheduler.cluster.fires.skipped", stats, s -> s.firesSkipped(reason))
                    .description("Fires of clustered jobs this instance did not run, by reason")
                    .tags(tags.and(
                            "reason", reason.name().toLowerCase(Locale.ROOT).replace('_', '-')))
                    .register(registry);
        }
        FunctionCounter.builder("scheduler.cluster.run-lease.expiries", stats, ClusterJobStats::leaseExpiries)
                .description("Run leases taken over from a holder that died or ran past the maximum run time")
                .tags(tags)
                .register(registry);
        FunctionTimer.builder(
                        "scheduler.cluster.claim",
                        stats,
                        ClusterJobStats::claimCount,
                        ClusterJobStats::claimTotalNanos,
                        TimeUnit.NANOSECONDS)
                .description("Database round trip of each claim of a fire")
                .tags(tags)
                .register(registry);
        TimeGauge.builder("scheduler.cluster.clock.offset", clock, TimeUnit.NANOSECONDS, c ->
                        (double) c.offset().toNanos())
                .description("Database clock minus this instance's clock, as last measured")
                .tags(tags)
                .register(registry);
        TimeGauge.builder("scheduler.cluster.clock.error", clock, TimeUnit.NANOSECONDS, c ->
                        (double) c.error().toNanos())
                .description("Most the clock offset may be off by: half the round trip of its measurement")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder(
                        "scheduler.cluster.database.failures",
                        jobs,
                        j -> j.outages().failureCount())
                .description("Failed database calls of clustered jobs")
                .tags(tags)
                .register(registry);
    }
}
