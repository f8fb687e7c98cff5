package io.timedjobs.benchmarks.cluster;

import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/**
 * The one view the cluster scenarios have of a durable scheduler: several instances on one database,
 * tasks scheduled in bulk by id and due instant, and a callback at each execution's start.
 * Implementations are used by one benchmark thread; the callback is called from their workers.
 */
interface ClusterPeer extends AutoCloseable {

    /** The peer's name as printed, with the settings that tell its variants apart. */
    String name();

    /**
     * Creates the peer's tables (dropping what an earlier run left) and starts one instance per data
     * source; each instance calls {@code executions.started(index)} when a task starts.
     */
    default void start(List<DataSource> instances, Executions executions) throws Exception {
        createTables(instances.get(0));
        startInstances(instances, 0, executions);
    }

    /** Creates the peer's tables, dropping what an earlier run left. */
    void createTables(DataSource dataSource) throws Exception;

    /**
     * Starts one instance per data source on tables that exist, numbered from {@code firstNumber}
     * (instances of other processes have the others); the first of them is the one {@link
     * #scheduleAll} schedules through.
     */
    void startInstances(List<DataSource> instances, int firstNumber, Executions executions) throws Exception;

    /** Schedules task {@code i} due at {@code due[i]} for every i, through the first instance. */
    void scheduleAll(Instant[] due) throws Exception;

    /** Stops every instance; pending tasks stay in the database. */
    @Override
    void close() throws Exception;
}
