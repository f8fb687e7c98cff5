package io.timedjobs.benchmarks.cluster;

import io.timedjobs.benchmarks.Sizes;
import io.timedjobs.benchmarks.Stats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * IDLE-LOAD: what one scheduler instance with nothing due sends to its database, per minute. Each
 * peer runs alone on one embedded PostgreSQL with 0 (no job, no handler), 1, 10 and 100 clustered
 * jobs that fire once a day, through a {@link CountingDataSource} (statements and commits as the
 * application's connections send them, the same count for every peer). After a warm-up of {@code
 * bench.idleWarmupMs} (30 s; start-up is not idle), the window of {@code bench.idleWindowMs} (60 s)
 * is counted, and {@code pg_stat_statements} counts the same window from the server's side (only
 * this peer runs then; utility statements such as BEGIN are not tracked).
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.cluster.IdleLoad [rounds] [job counts] [peers]
 * </pre>
 *
 * Job counts and peers are comma-separated, e.g. {@code 0,1,10,100} and {@code
 * timed-jobs,db-scheduler,shedlock,jobrunr,quartz} (the defaults). Prints statements and commits per minute, median
 * {@code [min-max]} over rounds.
 */
public final class IdleLoad {

    private static final Map<String, Supplier<IdlePeer>> PEERS = new LinkedHashMap<>();

    static {
        PEERS.put("timed-jobs", IdleTimedJobs::new);
        PEERS.put("timed-jobs+handler", () -> new IdleTimedJobs(true, true));
        PEERS.put("timed-jobs+handler-nolisten", () -> new IdleTimedJobs(true, false));
        PEERS.put("db-scheduler", IdleDbScheduler::new);
        PEERS.put("shedlock", IdleShedLock::new);
        PEERS.put("jobrunr", IdleJobRunr::new);
        PEERS.put("quartz", IdleQuartz::new);
    }

    private IdleLoad() {}

    public static void main(String[] args) throws Exception {
        compare(args);
        System.exit(0); // peers' stray threads must not keep the run alive
    }

    /** Runs the scenario and prints the table; {@code args} as for {@link #main}. */
    public static void compare(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int[] counts = Arrays.stream((args.length > 1 ? args[1] : Sizes.smoke() ? "1" : "0,1,10,100").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        List<String> peers = List.of((args.length > 2 ? args[2] : String.join(",", PEERS.keySet())).split(","));
        long warmup = Long.getLong("bench.idleWarmupMs", Sizes.smoke() ? 500 : 30_000);
        long window = Long.getLong("bench.idleWindowMs", Sizes.smoke() ? 2_000 : 60_000);
        System.out.printf(
                "# IDLE-LOAD: jobs %s, peers %s, warm-up %d ms, window %d ms, %d rounds, JDK %s%n",
                Arrays.toString(counts), peers, warmup, window, rounds, Runtime.version());

        Map<String, List<double[]>> results = new LinkedHashMap<>();
        try (PostgresBenchDatabase database = new PostgresBenchDatabase(true)) {
            for (int round = 0; round < rounds; round++) {
                for (int jobs : counts) {
                    for (int p = 0; p < peers.size(); p++) {
                        String peerName = peers.get((p + round) % peers.size());
                        double[] r = run(database, PEERS.get(peerName).get(), jobs, warmup, window);
                        results.computeIfAbsent(jobs + " | " + peerName, k -> new ArrayList<>())
                                .add(r);
                        System.out.printf(
                                Locale.ROOT,
                                "round %d jobs %3d %-14s statements/min %.1f, commits/min %.1f,"
                                        + " pg_stat_statements/min %.1f%n",
                                round + 1,
                                jobs,
                                peerName,
                                r[0],
                                r[1],
                                r[2]);
                    }
                }
            }
        }
        System.out.println();
        System.out.println("| jobs | peer | statements/min | commits/min | pg_stat_statements calls/min |");
        System.out.println("| --- | --- | --- | --- | --- |");
        for (var entry : results.entrySet()) {
            StringBuilder row = new StringBuilder("| " + entry.getKey() + " |");
            for (int column = 0; column < 3; column++) {
                List<Double> values = new ArrayList<>();
                for (double[] r : entry.getValue()) {
                    values.add(r[column]);
                }
                row.append(' ')
                        .append(values.stream().allMatch(v -> Double.isNaN(v)) ? "-" : Stats.range(values, 1, 1))
                        .append(" |");
            }
            System.out.println(row);
        }
    }

    /** One peer with {@code jobs} jobs; returns {statements/min, commits/min, pg_stat_statements calls/min}. */
    static double[] run(PostgresBenchDatabase database, IdlePeer peer, int jobs, long warmupMillis, long windowMillis)
            throws Exception {
        try {
            DataSource pool = database.pool("idle-" + peer.name(), 4);
            peer.createTables(pool);
            CountingDataSource counting = new CountingDataSource(pool);
            peer.start(counting.dataSource(), jobs);
            Thread.sleep(warmupMillis);
            long statements = counting.statements();
            long commits = counting.commits();
            database.resetStatementStats();
            long start = System.nanoTime();
            Thread.sleep(windowMillis);
            double serverSide = database.statementStats();
            double minutes = (System.nanoTime() - start) / 60e9;
            return new double[] {
                (counting.statements() - statements) / minutes,
                (counting.commits() - commits) / minutes,
                serverSide / minutes
            };
        } finally {
            peer.close();
            database.closePools();
        }
    }
}
