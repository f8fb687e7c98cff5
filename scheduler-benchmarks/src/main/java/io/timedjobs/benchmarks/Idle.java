package io.timedjobs.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * IDLE-1H: what a scheduler costs while it waits. Every peer (2 workers) is built in this one
 * process, given one task due in an hour, and left alone for {@code bench.windowMs} (10 s). Over
 * that window the CPU time and the context switches of each peer's own threads are read from
 * {@code /proc/self/task} (threads are told apart by name); a voluntary context switch is a thread
 * that slept and was woken, so it counts wake-ups. The whole process is shown too, JIT and GC
 * included, for scale.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.Idle [rounds] [peers]
 * </pre>
 */
public final class Idle {

    private Idle() {}

    public static void main(String[] args) throws InterruptedException {
        if (!ProcThreads.supported()) {
            System.out.println("# IDLE-1H needs Linux /proc/self/task; skipped");
            return;
        }
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : (Sizes.smoke() ? 1 : 5);
        List<String> peers = Peers.select(args.length > 1 ? args[1] : null, true);
        long window = Sizes.millis("window", 10_000);
        System.out.println("# IDLE-1H: one task due in 1 h, " + window + " ms window, " + rounds + " rounds, JDK "
                + Runtime.version());

        Map<String, List<ProcThreads.Delta>> results = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            List<SchedulerUnderTest> schedulers = new ArrayList<>();
            try {
                for (String peer : peers) {
                    SchedulerUnderTest scheduler = Peers.create(peer, 2);
                    schedulers.add(scheduler);
                    scheduler.schedule(BenchTask.NOOP, TimeUnit.HOURS.toNanos(1));
                }
                Thread.sleep(Math.min(1000, window)); // let threads start and settle
                Map<Long, ProcThreads.Sample> before = ProcThreads.snapshot();
                Thread.sleep(window);
                Map<Long, ProcThreads.Sample> after = ProcThreads.snapshot();
                for (SchedulerUnderTest scheduler : schedulers) {
                    ProcThreads.Delta d = ProcThreads.delta(
                            before, after, List.of(scheduler.threadPrefix().split("\\|")));
                    results.computeIfAbsent(scheduler.name(), k -> new ArrayList<>())
                            .add(d);
                    System.out.printf(
                            "round %d %-16s threads %d  cpu %9.3f ms  wake-ups %6d  preempted %d%n",
                            round + 1,
                            scheduler.name(),
                            d.threads(),
                            d.cpuNanos() / 1e6,
                            d.voluntary(),
                            d.involuntary());
                }
                ProcThreads.Delta all = ProcThreads.delta(before, after, List.of());
                results.computeIfAbsent("(whole process)", k -> new ArrayList<>())
                        .add(all);
                System.out.printf(
                        "round %d %-16s threads %d  cpu %9.3f ms  wake-ups %6d%n",
                        round + 1, "(whole process)", all.threads(), all.cpuNanos() / 1e6, all.voluntary());
            } finally {
                schedulers.forEach(SchedulerUnderTest::close);
            }
        }
        System.out.println();
        StringBuilder out = new StringBuilder();
        out.append("# IDLE-1H over ")
                .append(window)
                .append(" ms, median [min-max] over ")
                .append(rounds)
                .append(" rounds; JDK ")
                .append(Runtime.version())
                .append('\n');
        out.append("| peer | threads | CPU ms | wake-ups (voluntary switches) | preempted |\n");
        out.append("| --- | --- | --- | --- | --- |\n");
        for (Map.Entry<String, List<ProcThreads.Delta>> entry : results.entrySet()) {
            List<ProcThreads.Delta> ds = entry.getValue();
            out.append("| ")
                    .append(entry.getKey())
                    .append(" | ")
                    .append(ds.get(0).threads())
                    .append(" | ")
                    .append(Stats.range(map(ds, d -> d.cpuNanos()), 1e6, 3))
                    .append(" | ")
                    .append(Stats.range(map(ds, d -> d.voluntary()), 1, 0))
                    .append(" | ")
                    .append(Stats.range(map(ds, d -> d.involuntary()), 1, 0))
                    .append(" |\n");
        }
        System.out.println(out);
    }

    static List<Double> map(List<ProcThreads.Delta> deltas, java.util.function.ToLongFunction<ProcThreads.Delta> f) {
        List<Double> values = new ArrayList<>();
        for (ProcThreads.Delta d : deltas) {
            values.add((double) f.applyAsLong(d));
        }
        return values;
    }
}
