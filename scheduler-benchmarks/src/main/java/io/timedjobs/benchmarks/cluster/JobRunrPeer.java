package io.timedjobs.benchmarks.cluster;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jobrunr.jobs.mappers.JobMapper;
import org.jobrunr.scheduling.JobBuilder;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.BackgroundJobServerConfiguration;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.StorageProvider;
import org.jobrunr.storage.StorageProviderUtils.DatabaseOptions;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.jackson.JacksonJsonMapper;
import org.jspecify.annotations.Nullable;

/**
 * JobRunr 8.1 (open-source edition) on PostgreSQL: one {@link BackgroundJobServer} per instance,
 * each on its own {@link PostgresStorageProvider}, Jackson as its JSON mapper. It polls every {@link
 * #POLL_INTERVAL} (its default is 15 s; 5 s is the least its SQL storage accepts) with {@link
 * #WORKERS} workers (its default is 8 per processor); every other setting is its default. Jobs are
 * scheduled in one stream through {@link JobScheduler#create(java.util.stream.Stream)}, which saves
 * them in batches. Used by the benchmark thread only.
 */
final class JobRunrPeer implements ClusterPeer {

    /** The least poll interval JobRunr's SQL storage accepts. */
    static final Duration POLL_INTERVAL = Duration.ofSeconds(5);

    /** Workers per instance, as db-scheduler's default. */
    static final int WORKERS = 10;

    private final List<BackgroundJobServer> servers = new ArrayList<>();
    private @Nullable JobScheduler scheduler;

    @Override
    public String name() {
        return "jobrunr poll " + POLL_INTERVAL.toSeconds() + " s";
    }

    @Override
    public void createTables(DataSource dataSource) throws Exception {
        dropTables(dataSource);
        new PostgresStorageProvider(dataSource, DatabaseOptions.CREATE).close();
    }

    /** Drops JobRunr's tables and views, so that its migrations start afresh. */
    static void dropTables(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("drop table if exists jobrunr_jobs, jobrunr_recurring_jobs, jobrunr_backgroundjobservers,"
                    + " jobrunr_metadata, jobrunr_migrations, jobrunr_job_counters cascade");
        }
    }

    @Override
    public void startInstances(List<DataSource> instances, int firstNumber, Executions executions) {
        JobRunrWork.reportTo(executions);
        for (DataSource dataSource : instances) {
            StorageProvider storage = storage(dataSource);
            if (scheduler == null) {
                scheduler = new JobScheduler(storage);
            }
            servers.add(startServer(storage, "jobrunr-" + (firstNumber + servers.size()), WORKERS));
        }
    }

    /** A storage provider on tables that exist, with Jackson as its mapper. */
    static StorageProvider storage(DataSource dataSource) {
        StorageProvider storage = new PostgresStorageProvider(dataSource, DatabaseOptions.SKIP_CREATE);
        storage.setJobMapper(new JobMapper(new JacksonJsonMapper()));
        return storage;
    }

    /** Starts a server on {@code storage}, polling every {@link #POLL_INTERVAL}. */
    static BackgroundJobServer startServer(StorageProvider storage, String name, int workers) {
        BackgroundJobServer server = new BackgroundJobServer(
                storage,
                new JacksonJsonMapper(),
                new NoInstances(),
                BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration()
                        .andName(name)
                        .andPollInterval(POLL_INTERVAL)
                        .andWorkerCount(workers));
        server.start();
        return server;
    }

    @Override
    public void scheduleAll(Instant[] due) {
        JobScheduler through = scheduler;
        if (through == null) {
            throw new IllegalStateException("No instance started");
        }
        through.create(IntStream.range(0, due.length)
                .mapToObj(i -> JobBuilder.aJob()
                        .scheduleAt(due[i])
                        .withAmountOfRetries(0)
                        .withDetails(() -> JobRunrWork.start(i))));
    }

    @Override
    public void close() {
        servers.forEach(BackgroundJobServer::stop);
        servers.forEach(server -> server.getStorageProvider().close());
        servers.clear();
        scheduler = null;
    }

    /**
     * The benchmarks' jobs are static methods: JobRunr needs no instance of anything, and runs a job
     * on a fresh instance or statically where its activator has none.
     */
    private static final class NoInstances implements JobActivator {
        @Override
        public <T> @Nullable T activateJob(Class<T> type) {
            return null;
        }
    }
}
