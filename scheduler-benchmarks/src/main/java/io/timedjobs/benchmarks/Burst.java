package io.timedjobs.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * BURST: {@code bench.burst} (100k) tasks due at one and the same instant, 4 workers. The drain rate
 * is the task count divided by the time from that instant until the last task has finished. Each
 * task only counts itself.
 *
 * <p>Every peer first runs one whole burst off the record ({@code bench.burstWarmups}, default 1), so
 * that the measured rounds compare compiled code rather than the JIT's progress: without it the first
 * rounds of every peer run partly interpreted, at a fraction of the later rate.
 *
 * <p>Wake-ups are the voluntary context switches of the peer's own threads from just before the
 * instant until the drain ends ({@code /proc/self/task}): each is a thread that blocked and was
 * woken. A peer that starts a thread per task ({@code spring-simple}) has threads that are gone
 * before they can be read: n/a.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.Burst [rounds] [peers]
 * </pre>
 */
public final class Burst {

    static final int WORKERS = 4;

    private Burst() {}

    /** Counts itself; the last one notes the time. */
    static final class Counted extends BenchTask {
        final AtomicInteger count = new AtomicInteger();
        final AtomicLong lastEnd = new AtomicLong();
        final int total;
        final CountDownLatch done = new CountDownLatch(1);

        Counted(int total) {
            this.total = total;
        }

        @Override
        public void run() {
            if (count.incrementAndGet() == total) {
                lastEnd.set(System.nanoTime());
                done.countDown();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : (Sizes.smoke() ? 1 : 5);
        List<String> peers = Peers.select(args.length > 1 ? args[1] : null, false);
        int tasks = Sizes.size("burst", 100_000);
        int warmups = Integer.getInteger("bench.burstWarmups", Sizes.smoke() ? 0 : 1);
        System.out.println("# BURST: " + tasks + " tasks due at one instant, " + WORKERS + " workers, " + warmups
                + " warm-up and " + rounds + " measured rounds, JDK " + Runtime.version());
        for (int round = 0; round < warmups; round++) {
            for (String peer : Stats.rotated(peers, round)) {
                double[] r = burst(peer, tasks);
                System.out.printf("warm-up %d %-16s %10.0f tasks/s (not counted)%n", round + 1, peer, r[0]);
            }
        }

        Map<String, List<Double>> rates = new LinkedHashMap<>();
        Map<String, List<Double>> wakeUps = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String peer : Stats.rotated(peers, round)) {
                double[] r = burst(peer, tasks);
                rates.computeIfAbsent(peer, k -> new ArrayList<>()).add(r[0]);
                if (r[1] >= 0) {
                    wakeUps.computeIfAbsent(peer, k -> new ArrayList<>()).add(r[1]);
                }
                System.out.printf(
                        "round %d %-16s %10.0f tasks/s   wake-ups %s%n",
                        round + 1, peer, r[0], r[1] >= 0 ? Stats.fixed(r[1], 0) : "n/a");
            }
        }
        System.out.println();
        StringBuilder out = new StringBuilder();
        out.append("# BURST, median [min-max] over ")
                .append(rounds)
                .append(" rounds; JDK ")
                .append(Runtime.version())
                .append('\n');
        out.append("| peer | drain rate, M tasks/s | x stpe | wake-ups |\n");
        out.append("| --- | --- | --- | --- |\n");
        double stpe = Stats.median(rates.getOrDefault(Peers.STPE, List.of()));
        for (String peer : rates.keySet()) {
            out.append("| ")
                    .append(peer)
                    .append(" | ")
                    .append(Stats.range(rates.get(peer), 1e6, 3))
                    .append(" | ")
                    .append(Stats.ratio(Stats.median(rates.get(peer)), stpe))
                    .append(" | ")
                    .append(wakeUps.containsKey(peer) ? Stats.range(wakeUps.get(peer), 1, 0) : "n/a")
                    .append(" |\n");
        }
        System.out.println(out);
    }

    /** Returns {drain rate in tasks/s, wake-ups or -1}. */
    static double[] burst(String peer, int tasks) throws InterruptedException {
        Counted task = new Counted(tasks);
        System.gc();
        try (SchedulerUnderTest scheduler = Peers.create(peer, WORKERS)) {
            // Start the threads and warm the path with a small burst of the same shape, off the record.
            Counted warm = new Counted(1000);
            for (int i = 0; i < 1000; i++) {
                scheduler.schedule(warm, 0);
            }
            warm.done.await(30, TimeUnit.SECONDS);
            long lead = TimeUnit.MILLISECONDS.toNanos(Sizes.smoke() ? 100 : 1000);
            long due = System.nanoTime() + lead;
            for (int i = 0; i < tasks; i++) {
                scheduler.schedule(task, due - System.nanoTime());
            }
            long handedOver = System.nanoTime();
            if (handedOver - due > 0) {
                System.out.println("# " + peer + ": scheduling took longer than the lead; the burst began early");
            }
            long sleep = due - System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(Sizes.smoke() ? 20 : 200);
            if (sleep > 0) {
                TimeUnit.NANOSECONDS.sleep(sleep);
            }
            var before = ProcThreads.snapshot();
            if (!task.done.await(120, TimeUnit.SECONDS)) {
                System.out.println("# " + peer + ": burst did not drain in 120 s");
                return new double[] {0, -1};
            }
            var after = ProcThreads.snapshot();
            double rate = tasks / ((task.lastEnd.get() - due) / 1e9);
            ProcThreads.Delta d = ProcThreads.delta(
                    before, after, List.of(scheduler.threadPrefix().split("\\|")));
            boolean readable = ProcThreads.supported() && !peer.equals(Peers.SPRING_SIMPLE);
            return new double[] {rate, readable ? d.voluntary() : -1};
        }
    }
}
