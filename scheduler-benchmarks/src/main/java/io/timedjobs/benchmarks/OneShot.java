package io.timedjobs.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * CHURN and INSERT in a second shape: each measurement in a fresh JVM (G1, fixed 4 GB heap), two
 * producers, {@code bench.oneShotWarmup} (300k) operations off the record and then
 * {@code bench.oneShotOps} (1M) measured operations in one shot, timed from a barrier until both
 * producers are done. It complements the JMH scenarios, whose steady state after many short
 * iterations hides what a first million costs (class loading, JIT, the heap growing, the wheel's
 * first laps).
 *
 * <ul>
 *   <li>CHURN: each operation schedules a timeout due uniformly in 10-30 s and cancels the one this
 *       producer scheduled 1,000 operations earlier.
 *   <li>INSERT: 1M tasks already pending, due uniformly in 1-2 h (filed before the clock starts);
 *       each operation schedules a task due uniformly in 1-60 s.
 * </ul>
 *
 * <p>Delays are drawn before the clock starts, from a seeded generator, so every peer gets the same
 * ones. Peers are interleaved: each round runs every peer once, rotated. The table gives the median
 * [min-max] of operations per second and the ratio to {@code stpe} and {@code stpe-roc} of the same run.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.OneShot [rounds] [peers] [churn|insert|both]
 * </pre>
 *
 * <p>{@code -Dbench.java=/path/to/java} runs the children on another JDK (JDK 25 for {@code fjp});
 * {@code -Dbench.oneShotJvm="..."} adds options to the children's command line (a flight recording);
 * {@code -Dbench.oneShotInProcess=true}
 * (the smoke run) measures in this JVM instead of forking.
 */
public final class OneShot {

    static final int PRODUCERS = 2;
    static final int CHURN_WINDOW = 1000;
    static final String RESULT = "ONE-SHOT-RESULT ";

    private OneShot() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            double[] result = measure(args[1], args[2]);
            System.out.println(RESULT + result[0] + " " + result[1]);
            System.exit(0); // stray daemon threads of a peer must not keep the child alive
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : (Sizes.smoke() ? 1 : 5);
        List<String> peers = peers(args.length > 1 ? args[1] : null);
        String which = args.length > 2 ? args[2] : "both";
        List<String> scenarios = which.equals("both") ? List.of("churn", "insert") : List.of(which);
        boolean inProcess = Sizes.smoke() || Boolean.getBoolean("bench.oneShotInProcess");
        System.out.println("# ONE-SHOT " + scenarios + ": " + ops() + " ops after " + warmup() + " warm-up, "
                + PRODUCERS + " producers, " + rounds + " rounds, "
                + (inProcess ? "in process" : "fresh JVM each (" + String.join(" ", childFlags()) + ")")
                + ", parent JDK " + Runtime.version());

        Map<String, Map<String, List<Double>>> rates = new LinkedHashMap<>();
        Map<String, Map<String, List<Double>>> perCpu = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String scenario : scenarios) {
                for (String peer : Stats.rotated(peers, round)) {
                    double[] result = inProcess ? measure(scenario, peer) : fork(scenario, peer);
                    rates.computeIfAbsent(scenario, k -> new LinkedHashMap<>())
                            .computeIfAbsent(peer, k -> new ArrayList<>())
                            .add(result[0]);
                    perCpu.computeIfAbsent(scenario, k -> new LinkedHashMap<>())
                            .computeIfAbsent(peer, k -> new ArrayList<>())
                            .add(result[1]);
                    System.out.printf(
                            "round %d %-7s %-14s %8.3f M ops/s %8.3f M ops per CPU-s%n",
                            round + 1, scenario, peer, result[0] / 1e6, result[1] / 1e6);
                }
            }
        }
        System.out.println();
        System.out.println("| scenario | peer | M ops/s median [min-max] | x stpe | x stpe-roc | M ops per CPU-s |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        for (Map.Entry<String, Map<String, List<Double>>> scenario : rates.entrySet()) {
            Map<String, List<Double>> byPeer = scenario.getValue();
            double stpe = Stats.median(byPeer.getOrDefault(Peers.STPE, List.of()));
            double roc = Stats.median(byPeer.getOrDefault(Peers.STPE_ROC, List.of()));
            for (Map.Entry<String, List<Double>> peer : byPeer.entrySet()) {
                double median = Stats.median(peer.getValue());
                System.out.println("| " + scenario.getKey() + " | " + peer.getKey() + " | "
                        + Stats.range(peer.getValue(), 1e6, 3) + " | " + Stats.ratio(median, stpe) + " | "
                        + Stats.ratio(median, roc) + " | "
                        + Stats.range(perCpu.get(scenario.getKey()).get(peer.getKey()), 1e6, 3) + " |");
            }
        }
    }

    /**
     * The peers to measure. When the children run on another JDK ({@code bench.java}), a peer this
     * JVM cannot build ({@code fjp} on JDK 17) is still measured there: the child is the one to judge.
     */
    static List<String> peers(String list) {
        if (System.getProperty("bench.java") == null || list == null || list.isBlank() || list.equals("all")) {
            return Peers.select(list, false);
        }
        List<String> peers = new ArrayList<>();
        for (String name : list.split(",")) {
            String n = name.trim();
            peers.addAll(n.equals(Peers.FJP) ? List.of(n) : Peers.select(n, false));
        }
        return peers;
    }

    static int ops() {
        return Sizes.size("oneShotOps", 1_000_000);
    }

    static int warmup() {
        return Sizes.size("oneShotWarmup", 300_000);
    }

    static List<String> childFlags() {
        return List.of("-XX:+UseG1GC", "-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch");
    }

    /** Runs one measurement in a fresh JVM and returns what {@link #measure} returned there. */
    static double[] fork(String scenario, String peer) throws IOException, InterruptedException {
        String java = System.getProperty(
                "bench.java",
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(childFlags());
        String extra = System.getProperty("bench.oneShotJvm", "").trim();
        if (!extra.isEmpty()) {
            // e.g. a flight recording: "-XX:StartFlightRecording=filename=churn-%p.jfr,settings=profile"
            command.addAll(Arrays.asList(extra.split("\\s+")));
        }
        System.getProperties().stringPropertyNames().stream()
                .filter(key -> key.startsWith("bench.") && !key.equals("bench.java"))
                .sorted()
                .forEach(key -> command.add("-D" + key + "=" + System.getProperty(key)));
        command.addAll(List.of(
                "-cp", System.getProperty("java.class.path"), OneShot.class.getName(), "--child", scenario, peer));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        double[] result = null;
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(RESULT)) {
                    String[] figures = line.substring(RESULT.length()).trim().split(" ");
                    result = new double[] {Double.parseDouble(figures[0]), Double.parseDouble(figures[1])};
                } else {
                    System.out.println("  | " + line);
                }
            }
        }
        if (!child.waitFor(10, TimeUnit.MINUTES)) {
            child.destroyForcibly();
        }
        if (result == null) {
            throw new IllegalStateException(
                    scenario + " on " + peer + " gave no result (exit " + child.exitValue() + ")");
        }
        return result;
    }

    /**
     * Runs one measurement in this JVM: operations per second over both producers, and operations
     * per second of the process's CPU time over the same stretch (all its threads: producers,
     * workers, JIT, GC). The second moves less than the first when other processes share the
     * machine, and shows work that a peer moves off the producers' threads.
     */
    static double[] measure(String scenario, String peer) throws Exception {
        boolean churn = scenario.equals("churn");
        if (!churn && !scenario.equals("insert")) {
            throw new IllegalArgumentException("Unknown scenario " + scenario + ": churn or insert");
        }
        int perProducerWarmup = warmup() / PRODUCERS;
        int perProducer = ops() / PRODUCERS;
        long[][] delays = new long[PRODUCERS][];
        SplittableRandom random = new SplittableRandom(42);
        // bench.oneShotLowMs and bench.oneShotHighMs change the range of the new tasks' delays.
        long low = TimeUnit.MILLISECONDS.toNanos(Long.getLong("bench.oneShotLowMs", churn ? 10_000 : 1_000));
        long high = TimeUnit.MILLISECONDS.toNanos(Long.getLong("bench.oneShotHighMs", churn ? 30_000 : 60_000));
        for (int p = 0; p < PRODUCERS; p++) {
            delays[p] = random.longs(perProducerWarmup + perProducer, low, high).toArray();
        }
        try (SchedulerUnderTest scheduler = Peers.create(peer, 2)) {
            if (!churn) {
                int pending = Sizes.size("oneShotPending", 1_000_000);
                long hour = TimeUnit.HOURS.toNanos(1);
                random.longs(pending, hour, 2 * hour).forEach(d -> scheduler.schedule(BenchTask.NOOP, d));
            }
            CyclicBarrier warm = new CyclicBarrier(PRODUCERS + 1);
            CyclicBarrier start = new CyclicBarrier(PRODUCERS + 1);
            CountDownLatch done = new CountDownLatch(PRODUCERS);
            // Each producer notes its own start and end: the main thread may be descheduled at the barrier.
            long[] began = new long[PRODUCERS];
            long[] ended = new long[PRODUCERS];
            for (int p = 0; p < PRODUCERS; p++) {
                long[] mine = delays[p];
                int index = p;
                Thread producer = new Thread(
                        () -> {
                            try {
                                Object[] window = churn ? new Object[CHURN_WINDOW] : null;
                                run(scheduler, mine, 0, perProducerWarmup, window);
                                warm.await();
                                start.await();
                                began[index] = System.nanoTime();
                                run(scheduler, mine, perProducerWarmup, mine.length, window);
                                ended[index] = System.nanoTime();
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            } finally {
                                done.countDown();
                            }
                        },
                        "producer-" + p);
                producer.setDaemon(true);
                producer.start();
            }
            warm.await(5, TimeUnit.MINUTES);
            System.gc();
            long cpuBefore = processCpuNanos();
            start.await(5, TimeUnit.MINUTES);
            if (!done.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException(scenario + " on " + peer + " did not finish in 5 minutes");
            }
            // The latch orders the producers' plain writes before these reads.
            long first = Arrays.stream(began).min().orElseThrow();
            long last = Arrays.stream(ended).max().orElseThrow();
            long cpu = processCpuNanos() - cpuBefore;
            double total = (double) perProducer * PRODUCERS;
            return new double[] {total / ((last - first) / 1e9), total / (cpu / 1e9)};
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** One producer's operations {@code from} to {@code to}; a window means CHURN. */
    private static void run(SchedulerUnderTest scheduler, long[] delays, int from, int to, Object[] window) {
        for (int i = from; i < to; i++) {
            Object handle = scheduler.schedule(BenchTask.NOOP, delays[i]);
            if (window != null) {
                int slot = i % window.length;
                Object oldest = window[slot];
                window[slot] = handle;
                if (oldest != null) {
                    scheduler.cancel(oldest);
                }
            }
        }
    }
}
