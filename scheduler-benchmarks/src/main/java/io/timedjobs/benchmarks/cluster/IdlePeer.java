package io.timedjobs.benchmarks.cluster;

import javax.sql.DataSource;

/**
 * One scheduler instance left alone with nothing due, for IDLE-LOAD: started on a data source with
 * a number of clustered jobs that fire once a day (none in the window), then closed. Used by the
 * benchmark thread only.
 */
interface IdlePeer extends AutoCloseable {

    /** The peer's name as printed. */
    String name();

    /** Creates the peer's tables (dropping what an earlier run left) on {@code setup}. */
    void createTables(DataSource setup) throws Exception;

    /** Starts one instance on {@code dataSource} with {@code jobs} daily jobs (0: no job at all). */
    void start(DataSource dataSource, int jobs) throws Exception;

    /** Stops the instance. */
    @Override
    void close() throws Exception;
}
