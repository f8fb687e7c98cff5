package io.timedjobs.benchmarks.cluster;

import io.timedjobs.benchmarks.Sizes;
import io.timedjobs.benchmarks.Stats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * JOB-FIRES: what clustered {@code @Scheduled} jobs that fire every second cost their database.
 * Each peer runs {@code bench.firesInstances} (4) instances in this JVM, each on a pool of its own
 * behind one {@link CountingDataSource}, with {@code jobs} (100) jobs on the cron {@code * * * * * *};
 * after a warm-up of {@code bench.firesWarmupMs} (10 s), a window of {@code bench.firesWindowMs}
 * (30 s) is counted:
 *
 * <ul>
 *   <li>statements and commits per second, all instances together (what the application's
 *       connections send);
 *   <li>statements per fire: those statements over the jobs' fires in the window (jobs times
 *       seconds), for the whole cluster;
 *   <li>runs per fire: 1 when each fire ran once across the instances, less when some did not run
 *       (the window's edges make it off by up to a second's fires); and the runs of one job twice
 *       within one second of the wall clock, over the whole run (a fire run twice);
 *   <li>the database's CPU: the user and system time of the {@code postgres} processes over the
 *       window, in milliseconds per second (read from {@code /proc} at its 10 ms resolution; NaN
 *       elsewhere).
 * </ul>
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.cluster.JobFires [rounds] [jobs] [peers]
 * </pre>
 *
 * Peers, comma-separated: {@code timed-jobs,shedlock,db-scheduler,jobrunr,quartz} (the defaults). Prints each
 * figure as the median {@code [min-max]} over the rounds.
 */
public final class JobFires {

    private static final Map<String, Supplier<FiringPeer>> PEERS = new LinkedHashMap<>();

    static {
        PEERS.put("timed-jobs", FiringPeers.TimedJobs::new);
        PEERS.put("shedlock", FiringPeers.ShedLock::new);
        PEERS.put("db-scheduler", FiringPeers.DbScheduler::new);
        PEERS.put("jobrunr", FiringJobRunr::new);
        PEERS.put("quartz", FiringQuartz::new);
    }

    private JobFires() {}

    public static void main(String[] args) throws Exception {
        compare(args);
        System.exit(0); // peers' stray threads must not keep the run alive
    }

    /** Runs the scenario and prints the table; {@code args} as for {@link #main}. */
    public static void compare(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : (Sizes.smoke() ? 5 : 100);
        List<String> peers = List.of((args.length > 2 ? args[2] : String.join(",", PEERS.keySet())).split(","));
        int instances = Integer.getInteger("bench.firesInstances", Sizes.smoke() ? 2 : 4);
        long warmup = Long.getLong("bench.firesWarmupMs", Sizes.smoke() ? 2_000 : 10_000);
        long window = Long.getLong("bench.firesWindowMs", Sizes.smoke() ? 3_000 : 30_000);
        System.out.printf(
                "# JOB-FIRES: %d jobs every second on %d instances, peers %s, warm-up %d ms, window %d ms, %d rounds,"
                        + " JDK %s%n",
                jobs, instances, peers, warmup, window, rounds, Runtime.version());
        Map<String, List<double[]>> results = new LinkedHashMap<>();
        try (PostgresBenchDatabase database = new PostgresBenchDatabase()) {
            for (int round = 0; round < rounds; round++) {
                for (int p = 0; p < peers.size(); p++) {
                    String name = peers.get((p + round) % peers.size());
                    Supplier<FiringPeer> peer = PEERS.get(name);
                    if (peer == null) {
                        throw new IllegalArgumentException("Unknown peer " + name + "; known: " + PEERS.keySet());
                    }
                    double[] r = run(database, peer, instances, jobs, warmup, window);
                    results.computeIfAbsent(name, k -> new ArrayList<>()).add(r);
                    System.out.printf(
                            Locale.ROOT,
                            "round %d %-13s statements/s %.1f, commits/s %.1f, statements/fire %.2f,"
                                    + " runs/fire %.3f, database CPU %.1f ms/s, runs of a job twice in one second %d%n",
                            round + 1,
                            name,
                            r[0],
                            r[1],
                            r[2],
                            r[3],
                            r[4],
                            (long) r[5]);
                }
            }
        }
        System.out.println();
        System.out.println(
                "| peer | statements/s | commits/s | statements per fire | runs per fire | database CPU, ms per s | runs twice in a second |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
        for (var entry : results.entrySet()) {
            StringBuilder row = new StringBuilder("| " + entry.getKey() + " |");
            for (int column = 0; column < 6; column++) {
                List<Double> values = new ArrayList<>();
                for (double[] r : entry.getValue()) {
                    values.add(r[column]);
                }
                int decimals = column == 3 ? 3 : column == 2 ? 2 : column == 5 ? 0 : 1;
                row.append(' ')
                        .append(values.stream().allMatch(v -> Double.isNaN(v)) ? "-" : Stats.range(values, 1, decimals))
                        .append(" |");
            }
            System.out.println(row);
        }
    }

    /**
     * One peer's instances with {@code jobs} jobs; returns {statements/s, commits/s, statements per
     * fire, runs per fire, database CPU in ms per s, runs of a job twice in one second over the whole
     * run}.
     */
    static double[] run(
            PostgresBenchDatabase database,
            Supplier<FiringPeer> peers,
            int instances,
            int jobs,
            long warmupMillis,
            long windowMillis)
            throws Exception {
        List<FiringPeer> started = new ArrayList<>();
        FiringPeer.Runs runs = new FiringPeer.Runs();
        try {
            List<CountingDataSource> counting = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                DataSource pool = database.pool("fires-" + i, 4);
                if (i == 0) {
                    peers.get().createTables(pool);
                }
                counting.add(new CountingDataSource(pool));
            }
            for (int i = 0; i < instances; i++) {
                FiringPeer peer = peers.get();
                started.add(peer);
                peer.start(counting.get(i).dataSource(), "instance-" + i, jobs, runs);
            }
            Thread.sleep(warmupMillis);
            long statements =
                    counting.stream().mapToLong(CountingDataSource::statements).sum();
            long commits =
                    counting.stream().mapToLong(CountingDataSource::commits).sum();
            long ranBefore = runs.count();
            Map<String, Long> byInstanceBefore = runs.byInstance();
            Map<String, Long> cpuBefore = postgresCpuTicks();
            long start = System.nanoTime();
            Thread.sleep(windowMillis);
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpu = postgresCpuSeconds(cpuBefore, postgresCpuTicks()) * 1000 / seconds;
            double fires = jobs * seconds;
            long sent =
                    counting.stream().mapToLong(CountingDataSource::statements).sum() - statements;
            long committed =
                    counting.stream().mapToLong(CountingDataSource::commits).sum() - commits;
            long ranInWindow = runs.count() - ranBefore;
            StringBuilder shares = new StringBuilder();
            runs.byInstance()
                    .forEach((instance, count) -> shares.append(String.format(
                            Locale.ROOT,
                            " %s %.1f%%",
                            instance,
                            100.0 * (count - byInstanceBefore.getOrDefault(instance, 0L)) / Math.max(1, ranInWindow))));
            if (shares.length() > 0) {
                System.out.println("  runs per instance in the window:" + shares);
            }
            return new double[] {
                sent / seconds,
                committed / seconds,
                sent / fires,
                (runs.count() - ranBefore) / fires,
                cpu,
                runs.duplicates()
            };
        } finally {
            for (FiringPeer peer : started) {
                peer.close();
            }
            database.closePools();
        }
    }

    /**
     * User and system clock ticks of every process named {@code postgres} on this machine (the
     * embedded server's, the only one while the benchmark runs), by process id; empty without {@code
     * /proc}.
     */
    static Map<String, Long> postgresCpuTicks() {
        Map<String, Long> ticks = new java.util.HashMap<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return ticks;
        }
        try (Stream<Path> entries = Files.list(proc)) {
            for (Path entry : entries.toList()) {
                String pid = entry.getFileName().toString();
                if (!pid.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String stat = Files.readString(entry.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    if (open < 0
                            || close < 0
                            || !stat.substring(open + 1, close).equals("postgres")) {
                        continue;
                    }
                    String[] fields = stat.substring(close + 2).split(" ");
                    // after the name: state is field 3 of stat(5), utime 14 and stime 15
                    ticks.put(pid, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                } catch (IOException | RuntimeException gone) {
                    // the process ended while listed
                }
            }
        } catch (IOException e) {
            ticks.clear();
        }
        return ticks;
    }

    /**
     * CPU seconds the {@code postgres} processes used between two readings of {@link
     * #postgresCpuTicks()}: those alive at the second, from the first reading or from their start; a
     * process that ended between them is not counted. NaN without {@code /proc}.
     */
    static double postgresCpuSeconds(Map<String, Long> before, Map<String, Long> after) {
        if (after.isEmpty()) {
            return Double.NaN;
        }
        long ticks = 0;
        for (var process : after.entrySet()) {
            ticks += process.getValue() - before.getOrDefault(process.getKey(), 0L);
        }
        return ticks / 100.0; // USER_HZ is 100 on Linux
    }
}
