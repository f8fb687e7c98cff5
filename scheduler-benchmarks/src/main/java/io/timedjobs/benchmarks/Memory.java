package io.timedjobs.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * MEM-1M and CHURN retained memory, from the heap in use after a full collection.
 *
 * <ul>
 *   <li>MEM-1M: heap after scheduling {@code bench.pending} (1M) copies of one shared task, due
 *       between one and two hours out, minus heap before, divided by the count: bytes each pending
 *       task costs in the scheduler itself (its task object, queue slot and anything else it
 *       allocates; the shared task is not counted, and no handle is kept by the harness).
 *   <li>CHURN retained: heap right after {@code bench.churned} (1M) timeout operations (schedule a
 *       task due in 30 s, cancel the one scheduled {@value ChurnBenchmark#WINDOW} operations before,
 *       and finally the rest), minus heap before, in MB (10^6 bytes): what cancelled tasks leave
 *       behind. A peer that drops cancelled tasks only later (a wheel's next tick, a due time) shows
 *       them here.
 * </ul>
 *
 * <p>Each measurement runs in a fresh JVM with this one's options. A peer's own hand-over thread may hold a task for a moment after it is scheduled (Netty's
 * wheel moves at most 100k new timeouts per tick into its buckets): MEM-1M waits
 * {@code bench.settleMs} (2 s) before it measures, CHURN does not wait.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.Memory [rounds] [peers]
 * </pre>
 */
public final class Memory {

    private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

    private Memory() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("--one")) {
            oneMeasurement(args[1], args[2]);
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : (Sizes.smoke() ? 1 : 3);
        List<String> peers = Peers.select(args.length > 1 ? args[1] : null, false);
        int pending = Sizes.size("pending", 1_000_000);
        int churned = Sizes.size("churned", 1_000_000);
        System.out.println("# MEM-1M (" + pending + " pending) and CHURN retained (" + churned + " churned), "
                + rounds + " rounds, JDK " + Runtime.version() + ", "
                + ManagementFactory.getRuntimeMXBean().getInputArguments());

        Map<String, List<Double>> perTask = new LinkedHashMap<>();
        Map<String, List<Double>> retained = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String peer : Stats.rotated(peers, round)) {
                double bytes = inFreshJvm("mem", peer);
                double mb = inFreshJvm("churn", peer);
                perTask.computeIfAbsent(peer, k -> new ArrayList<>()).add(bytes);
                retained.computeIfAbsent(peer, k -> new ArrayList<>()).add(mb);
                System.out.printf(
                        "round %d %-16s %7.1f bytes per pending task   %8.2f MB retained after churn%n",
                        round + 1, peer, bytes, mb);
            }
        }
        System.out.println();
        StringBuilder out = new StringBuilder();
        out.append("# MEM-1M and CHURN retained, median [min-max] over ")
                .append(rounds)
                .append(" rounds; JDK ")
                .append(Runtime.version())
                .append('\n');
        out.append("| peer | bytes per pending task | x stpe | MB retained after ")
                .append(churned)
                .append(" churned |\n");
        out.append("| --- | --- | --- | --- |\n");
        double stpe = Stats.median(perTask.getOrDefault(Peers.STPE, List.of()));
        for (String peer : perTask.keySet()) {
            out.append("| ")
                    .append(peer)
                    .append(" | ")
                    .append(Stats.range(perTask.get(peer), 1, 1))
                    .append(" | ")
                    .append(Stats.ratio(Stats.median(perTask.get(peer)), stpe))
                    .append(" | ")
                    .append(Stats.range(retained.get(peer), 1, 2))
                    .append(" |\n");
        }
        System.out.println(out);
    }

    /**
     * Runs one measurement in a JVM of its own, with this JVM's options, so that nothing a peer
     * measured before left behind (threads winding down, pooled buffers) is counted against this one.
     */
    static double inFreshJvm(String what, String peer) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        System.getProperties().stringPropertyNames().stream()
                .filter(key -> key.startsWith("bench."))
                .forEach(key -> command.add("-D" + key + "=" + System.getProperty(key)));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Memory.class.getName());
        command.add("--one");
        command.add(what);
        command.add(peer);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        for (String line : output.split("\\R")) {
            if (line.startsWith(RESULT)) {
                return Double.parseDouble(line.substring(RESULT.length()).trim());
            }
        }
        throw new IllegalStateException(what + " of " + peer + " failed (exit " + exit + "):\n" + output);
    }

    private static final String RESULT = "result: ";

    static void oneMeasurement(String what, String peer) throws InterruptedException {
        double value = what.equals("mem")
                ? bytesPerPendingTask(peer, Sizes.size("pending", 1_000_000), Sizes.millis("settle", 2_000))
                : retainedAfterChurn(peer, Sizes.size("churned", 1_000_000));
        System.out.println(RESULT + value);
        System.exit(0);
    }

    static double bytesPerPendingTask(String peer, int count, long settleMillis) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(11);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = random.nextLong(TimeUnit.HOURS.toNanos(1), TimeUnit.HOURS.toNanos(2));
        }
        try (SchedulerUnderTest scheduler = Peers.create(peer, 2)) {
            scheduler.schedule(BenchTask.NOOP, TimeUnit.HOURS.toNanos(3)); // threads and first arrays exist
            Thread.sleep(100);
            long before = heapAfterGc();
            for (int i = 0; i < count; i++) {
                scheduler.schedule(BenchTask.NOOP, delays[i]);
            }
            Thread.sleep(settleMillis);
            long after = heapAfterGc();
            return (double) (after - before) / count;
        }
    }

    static double retainedAfterChurn(String peer, int count) throws InterruptedException {
        try (SchedulerUnderTest scheduler = Peers.create(peer, 2)) {
            scheduler.schedule(BenchTask.NOOP, TimeUnit.HOURS.toNanos(3));
            Thread.sleep(100);
            Object[] window = new Object[ChurnBenchmark.WINDOW];
            long before = heapAfterGc();
            long timeout = TimeUnit.SECONDS.toNanos(30);
            for (int i = 0; i < count; i++) {
                int slot = i & (window.length - 1);
                Object oldest = window[slot];
                window[slot] = scheduler.schedule(BenchTask.NOOP, timeout);
                if (oldest != null) {
                    scheduler.cancel(oldest);
                }
            }
            for (int i = 0; i < window.length; i++) {
                if (window[i] != null) {
                    scheduler.cancel(window[i]);
                    window[i] = null;
                }
            }
            long after = heapAfterGc();
            return (after - before) / 1e6;
        }
    }

    /**
     * Heap in use after full collections, once it stops shrinking. A short pause first lets
     * threads of a peer closed just before (a wheel's worker handing back its timeouts) finish,
     * so that what they still held is not counted against the next peer.
     */
    static long heapAfterGc() {
        try {
            Thread.sleep(300);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long now = MEMORY.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return now;
            }
            used = now;
        }
        return used;
    }
}
