package io.timedjobs.benchmarks.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.impl.SchedulerRepository;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.utils.ConnectionProvider;
import org.quartz.utils.DBConnectionManager;

/**
 * How the benchmarks make Quartz 2.5 schedulers: clustered {@code JobStoreTX} with its PostgreSQL
 * delegate, on a data source of the benchmark's, with the settings its configuration guide gives for
 * throughput (a batch of triggers per acquisition, as many as threads, acquired under the lock). Used
 * by the benchmark thread only.
 */
final class QuartzSetup {

    /** Quartz's own table script for PostgreSQL, in its jar. */
    static final String TABLES = "/org/quartz/impl/jdbcjobstore/tables_postgres.sql";

    /** Threads per instance, Quartz's usual 10 (as db-scheduler's default). */
    static final int THREADS = 10;

    /**
     * How late a trigger may fire before Quartz calls it misfired, in ms: 10 minutes, so that a
     * drain's late triggers fire on the normal path rather than through the misfire handler (20 a
     * transaction). Quartz's default is 60 s.
     */
    static final long MISFIRE_THRESHOLD_MS = 600_000;

    private static final AtomicInteger DATA_SOURCES = new AtomicInteger();

    private QuartzSetup() {}

    /** Drops and creates Quartz's tables from the script in its jar. */
    static void createTables(DataSource dataSource) throws IOException, SQLException {
        String script;
        try (InputStream in = Scheduler.class.getResourceAsStream(TABLES)) {
            if (in == null) {
                throw new IllegalStateException("Quartz's jar has no " + TABLES);
            }
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder withoutComments = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.strip().startsWith("--")) {
                withoutComments.append(line).append('\n');
            }
        }
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String statement : withoutComments.toString().split(";")) {
                String sql = statement.strip();
                if (!sql.isEmpty() && !sql.equalsIgnoreCase("commit")) {
                    s.execute(sql);
                }
            }
        }
    }

    /**
     * Starts (or, with {@code start} false, only makes) one clustered instance named {@code
     * instanceId} of the cluster {@code cluster} on {@code dataSource}, with {@code threads} threads.
     */
    static Scheduler scheduler(String cluster, String instanceId, DataSource dataSource, int threads, boolean start)
            throws SchedulerException {
        String name = "bench-" + DATA_SOURCES.incrementAndGet();
        DBConnectionManager.getInstance().addConnectionProvider(name, new Provider(dataSource));
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", cluster);
        p.setProperty("org.quartz.scheduler.instanceId", instanceId);
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", Integer.toString(threads));
        p.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
        p.setProperty("org.quartz.threadPool.threadCount", Integer.toString(threads));
        p.setProperty("org.quartz.threadPool.threadNamePrefix", "quartz-" + instanceId);
        p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        p.setProperty("org.quartz.jobStore.dataSource", name);
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
        p.setProperty("org.quartz.jobStore.misfireThreshold", Long.toString(MISFIRE_THRESHOLD_MS));
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        // Quartz keeps one scheduler per name in a JVM; the instances of a cluster share their name.
        SchedulerRepository.getInstance().remove(cluster);
        if (start) {
            scheduler.start();
        }
        return scheduler;
    }

    /** Hands Quartz the benchmark's pool; Quartz sets auto-commit off itself. */
    private record Provider(DataSource dataSource) implements ConnectionProvider {
        @Override
        public Connection getConnection() throws SQLException {
            return dataSource.getConnection();
        }

        @Override
        public void shutdown() {}

        @Override
        public void initialize() {}
    }
}
