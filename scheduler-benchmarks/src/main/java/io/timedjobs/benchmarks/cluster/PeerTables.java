package io.timedjobs.benchmarks.cluster;

import java.time.Duration;
import javax.sql.DataSource;

/**
 * Stateless, so thread-safe. The tables of the peers whose Spring integration does not create its
 * own, made the way the cluster scenarios make them, for the STARTUP benchmark's applications on
 * PostgreSQL: db-scheduler's {@code scheduled_tasks}, ShedLock's {@code shedlock}, Quartz's
 * {@code qrtz_*} tables. Each drops what it creates first.
 */
public final class PeerTables {

    private PeerTables() {}

    /** db-scheduler's table and indexes on PostgreSQL. */
    public static void dbScheduler(DataSource dataSource) throws Exception {
        new DbSchedulerPeer(Duration.ofSeconds(10), BenchDatabase.Kind.POSTGRESQL).createTables(dataSource);
    }

    /** ShedLock's table. */
    public static void shedLock(DataSource dataSource) throws Exception {
        new IdleShedLock().createTables(dataSource);
    }

    /** Quartz's tables from the PostgreSQL script in its jar. */
    public static void quartz(DataSource dataSource) throws Exception {
        QuartzSetup.createTables(dataSource);
    }
}
