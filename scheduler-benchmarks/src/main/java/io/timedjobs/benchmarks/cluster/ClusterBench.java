package io.timedjobs.benchmarks.cluster;

import io.timedjobs.benchmarks.Sizes;
import io.timedjobs.benchmarks.Stats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * CLUSTER-DRAIN and CLUSTER-SPREAD: durable schedulers with several instances each (4 by default;
 * {@code -Dbench.clusterInstances=4,8,16} runs each count in turn) on one database, side by side
 * in one run: an embedded PostgreSQL, or with {@code -Dbench.database=mariadb} a MariaDB server of
 * the run's own (see {@link BenchDatabase}). The instances of a peer share its JVM, each with a pool of its own.
 *
 * <ul>
 *   <li>DRAIN: {@code bench.clusterTasks} (50k) tasks all due at one instant, scheduled just before
 *       it. Executions per second from the due instant to the last start, and from the first start
 *       to the last (the drain alone, without the wait for a poll).
 *   <li>SPREAD: the same number of tasks due uniformly over {@code bench.clusterSpreadMs} (60 s).
 *       Lateness (first start minus due) at p50, p99 and max, and early starts.
 * </ul>
 *
 * <p>{@code -Dbench.clusterPeers=timed-jobs,jobrunr} runs only the peers whose names begin so.
 *
 * <p>With {@code -Dbench.history=true}, our peer also runs with the run history on
 * ("timed-jobs+history": a record written in each completion's transaction), beside it off, for
 * the cost per execution of the history.
 *
 * <p>Both report database commits per execution (from {@code pg_stat_database}, on MariaDB from
 * InnoDB's transaction counters; the scheduling included), duplicates (executions beyond the first) and lost tasks. Peers run one after the
 * other in each round, rotated; each gets fresh tables and fresh pools. In one JVM, warm-up rounds
 * run first and are not counted ({@code -Dbench.clusterWarmups}, 2 by default, 0 in a smoke run or
 * with a JVM per instance, whose children start cold anyway): without them, the peer that runs first
 * does so before the JIT has compiled anything, and after one round ours still drained at half its
 * later rate.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.cluster.ClusterBench [rounds] [drain|spread|both]
 * </pre>
 */
public final class ClusterBench {

    /** Instances per peer when {@code bench.clusterInstances} is not set. */
    static final int INSTANCES = 4;

    static final int POOL_SIZE = 12;

    private ClusterBench() {}

    public static void main(String[] args) throws Exception {
        compare(args);
        System.exit(0); // peers' stray threads must not keep the run alive
    }

    /** Runs the scenarios and prints the table; {@code args} as for {@link #main}. */
    public static void compare(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : (Sizes.smoke() ? 1 : 3);
        String which = args.length > 1 ? args[1] : "both";
        List<String> scenarios = which.equals("both") ? List.of("drain", "spread") : List.of(which);
        int tasks = Sizes.size("clusterTasks", 50_000);
        long spreadMillis = Sizes.millis("clusterSpread", 60_000);
        int[] instanceCounts = instanceCounts();
        Map<String, Map<String, List<double[]>>> results = new LinkedHashMap<>();
        try (BenchDatabase database = BenchDatabase.fromProperty()) {
            List<Supplier<ClusterPeer>> peers = peers(database.kind());
            System.out.printf(
                    "# CLUSTER %s: %d tasks, %s instances%s, spread over %d ms, %d rounds, JDK %s, %s,"
                            + " db-scheduler polling with %s%n",
                    scenarios,
                    tasks,
                    Arrays.toString(instanceCounts),
                    ClusterProcesses.enabled() ? " (a JVM each)" : " (in one JVM)",
                    spreadMillis,
                    rounds,
                    Runtime.version(),
                    database.describe(),
                    DbSchedulerPeer.pollingStrategy(database.kind()));
            int warmups =
                    Integer.getInteger("bench.clusterWarmups", Sizes.smoke() || ClusterProcesses.enabled() ? 0 : 2);
            for (int round = -warmups; round < rounds; round++) {
                for (int instances : instanceCounts) {
                    for (String scenario : scenarios) {
                        String label = instanceCounts.length == 1 ? scenario : scenario + " x" + instances;
                        for (int p = 0; p < peers.size(); p++) {
                            int index = Math.floorMod(p + round, peers.size());
                            ClusterPeer peer = peers.get(index).get();
                            if (!chosen(peer.name())) {
                                continue;
                            }
                            double[] r = ClusterProcesses.enabled()
                                    ? ClusterProcesses.run(
                                            database, index, peer, scenario, tasks, spreadMillis, instances)
                                    : run(database, peer, scenario, tasks, spreadMillis, instances);
                            if (round >= 0) {
                                results.computeIfAbsent(label, k -> new LinkedHashMap<>())
                                        .computeIfAbsent(peer.name(), k -> new ArrayList<>())
                                        .add(r);
                            }
                            System.out.printf(
                                    Locale.ROOT,
                                    "%s %-9s %-28s %s%n",
                                    round >= 0 ? "round " + (round + 1) : "warm-up",
                                    label,
                                    peer.name(),
                                    format(r));
                        }
                    }
                }
            }
        }
        System.out.println();
        System.out.println(
                "| scenario | peer | exec/s from due | exec/s first to last | lateness p50 ms | p99 ms | max ms | early | earliest ms | commits/exec | duplicates | lost |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (var scenario : results.entrySet()) {
            for (var peer : scenario.getValue().entrySet()) {
                StringBuilder row = new StringBuilder("| " + scenario.getKey() + " | " + peer.getKey() + " |");
                for (int column = 0; column < 10; column++) {
                    List<Double> values = new ArrayList<>();
                    for (double[] r : peer.getValue()) {
                        values.add(r[column]);
                    }
                    row.append(' ')
                            .append(medianRange(
                                    values, column < 2 ? 0 : column < 5 || column == 6 ? 2 : column == 7 ? 1 : 0))
                            .append(" |");
                }
                System.out.println(row);
            }
        }
    }

    /**
     * The peers of every run: ours (with the history too under {@code bench.history}), db-scheduler at
     * its default polling (not in a smoke run) and at 100 ms, and on PostgreSQL JobRunr and Quartz.
     */
    static List<Supplier<ClusterPeer>> peers(BenchDatabase.Kind database) {
        List<Supplier<ClusterPeer>> peers = new ArrayList<>();
        peers.add(TimedJobsPeer::new);
        if (Boolean.getBoolean("bench.history")) {
            peers.add(() -> new TimedJobsPeer(true));
        }
        if (!Sizes.smoke()) {
            peers.add(() -> new DbSchedulerPeer(Duration.ofSeconds(10), database));
        }
        peers.add(() -> new DbSchedulerPeer(Duration.ofMillis(100), database));
        if (database == BenchDatabase.Kind.POSTGRESQL) {
            peers.add(JobRunrPeer::new);
            peers.add(QuartzPeer::new);
        }
        return peers;
    }

    /**
     * Whether {@code bench.clusterPeers} (comma-separated beginnings of names, e.g. {@code
     * timed-jobs,quartz}; every peer when unset) names the peer {@code name}.
     */
    static boolean chosen(String name) {
        String chosen = System.getProperty("bench.clusterPeers", "").strip();
        return chosen.isEmpty()
                || Arrays.stream(chosen.split(",")).map(String::strip).anyMatch(name::startsWith);
    }

    /**
     * Connections per instance: {@value #POOL_SIZE}, fewer with many instances so that all of them
     * stay within the server's 200 connections (16 instances get 11 each).
     */
    static int poolSize(int instances) {
        return Math.max(2, Math.min(POOL_SIZE, 180 / instances));
    }

    /** The instance counts to run, from {@code bench.clusterInstances} (a comma-separated list). */
    static int[] instanceCounts() {
        String counts = System.getProperty("bench.clusterInstances", Integer.toString(INSTANCES));
        int[] parsed = Arrays.stream(counts.split(","))
                .map(String::trim)
                .mapToInt(Integer::parseInt)
                .toArray();
        if (parsed.length == 0 || Arrays.stream(parsed).anyMatch(count -> count < 1)) {
            throw new IllegalArgumentException("bench.clusterInstances needs counts of at least 1, got " + counts);
        }
        return parsed;
    }

    /**
     * One scenario on one peer. Returns {rate from due, rate first to last, p50 ms, p99 ms, max ms,
     * early starts, earliest start in ms (negative: early), commits per execution, duplicates, lost}.
     */
    static double[] run(
            BenchDatabase database, ClusterPeer peer, String scenario, int tasks, long spreadMillis, int instances)
            throws Exception {
        boolean drain = scenario.equals("drain");
        Instant[] due = new Instant[tasks];
        Executions executions = new Executions(due);
        List<DataSource> pools = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            pools.add(database.pool("instance-" + i, poolSize(instances)));
        }
        long commitsBefore = database.commits();
        try {
            peer.start(pools, executions);
            // Far enough ahead that scheduling is done before the first task is due.
            Instant start = Instant.now().plusSeconds(Sizes.smoke() ? 2 : 8);
            dueInstants(due, start, drain, spreadMillis);
            peer.scheduleAll(due);
            if (Instant.now().isAfter(start)) {
                System.out.println("# " + peer.name() + ": scheduling took longer than the lead");
            }
            long wait = (drain ? 0 : spreadMillis) + TimeUnit.MINUTES.toMillis(3);
            executions
                    .allStarted()
                    .await(wait + Duration.between(Instant.now(), start).toMillis(), TimeUnit.MILLISECONDS);
            // Stragglers and duplicates have a moment to show up.
            executions.allStarted().await(2, TimeUnit.SECONDS);
            peer.close();
            database.closePools();
            long commits = database.commits() - commitsBefore;
            return figures(executions, start, commits, drain);
        } finally {
            peer.close();
            database.closePools();
        }
    }

    /**
     * Fills {@code due}: every task at {@code start} in DRAIN, else uniformly over the spread after
     * it, from a fixed seed, so that every peer (and every process) gets the same instants.
     */
    static void dueInstants(Instant[] due, Instant start, boolean drain, long spreadMillis) {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < due.length; i++) {
            due[i] = drain ? start : start.plusNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(spreadMillis)));
        }
    }

    /**
     * What a run found, from its executions and its commits: {rate from due, rate first to last,
     * p50 ms, p99 ms, max ms, early starts, earliest start in ms, commits per execution, duplicates,
     * lost}.
     */
    static double[] figures(Executions executions, Instant start, long commits, boolean drain) {
        long[] lateness = executions.latenessMicros();
        Arrays.sort(lateness);
        long dueMicros = Executions.micros(start);
        double fromDue = executions.tasks() / ((executions.lastStartMicros() - dueMicros) / 1e6);
        double firstToLast = executions.tasks()
                / Math.max(1e-6, (executions.lastStartMicros() - executions.firstStartMicros()) / 1e6);
        long early = Arrays.stream(lateness).filter(l -> l < 0).count();
        return new double[] {
            drain ? fromDue : Double.NaN,
            drain ? firstToLast : Double.NaN,
            Stats.percentile(lateness, 0.50) / 1e3,
            Stats.percentile(lateness, 0.99) / 1e3,
            lateness.length == 0 ? Double.NaN : lateness[lateness.length - 1] / 1e3,
            early,
            lateness.length == 0 ? Double.NaN : lateness[0] / 1e3,
            (double) commits / Math.max(1, executions.tasks() - executions.lost()),
            executions.duplicates(),
            executions.lost()
        };
    }

    private static String format(double[] r) {
        return String.format(
                Locale.ROOT,
                "from due %.0f/s, first-to-last %.0f/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, early %.0f"
                        + " (earliest %.2f ms), commits/exec %.2f, duplicates %.0f, lost %.0f",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                r[7],
                r[8],
                r[9]);
    }

    private static String medianRange(List<Double> values, int decimals) {
        return values.stream().allMatch(v -> Double.isNaN(v)) ? "-" : Stats.range(values, 1, decimals);
    }
}
