package io.timedjobs.benchmarks.cluster;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * One scheduler instance of a peer for JOB-FIRES ({@link JobFires}): started on a data source with
 * a number of clustered jobs that fire every second, then closed. Used by the benchmark thread only.
 */
interface FiringPeer extends AutoCloseable {

    /** Runs of every job on every instance of one peer; counted from the jobs' threads. */
    final class Runs {
        private final LongAdder runs = new LongAdder();
        private final LongAdder duplicates = new LongAdder();
        private final Set<String> seen = ConcurrentHashMap.newKeySet();
        private final Map<String, LongAdder> byInstance = new ConcurrentHashMap<>();

        /** As {@link #ran(String)}, counting the run for {@code instance} too. */
        void ran(String job, String instance) {
            byInstance.computeIfAbsent(instance, name -> new LongAdder()).increment();
            ran(job);
        }

        /**
         * Counts a run of {@code job} now, on an instance not told; a second run of it within the same
         * second of the wall clock is a duplicate.
         */
        void ran(String job) {
            runs.increment();
            if (!seen.add(job + "@" + System.currentTimeMillis() / 1000)) {
                duplicates.increment();
            }
        }

        long count() {
            return runs.sum();
        }

        long duplicates() {
            return duplicates.sum();
        }

        /** Runs so far by instance, sorted by name; empty for a peer whose runs do not tell it. */
        Map<String, Long> byInstance() {
            Map<String, Long> counts = new TreeMap<>();
            byInstance.forEach((instance, count) -> counts.put(instance, count.sum()));
            return counts;
        }
    }

    /** Creates the peer's tables (dropping what an earlier run left) on {@code setup}, once per run. */
    void createTables(DataSource setup) throws Exception;

    /** Starts one instance named {@code instance} on {@code dataSource}, with {@code jobs} jobs every second. */
    void start(DataSource dataSource, String instance, int jobs, Runs runs) throws Exception;

    /** Stops the instance. */
    @Override
    void close() throws Exception;
}
