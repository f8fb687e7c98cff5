package io.timedjobs.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * LATENESS: how late tasks start. {@code bench.tasks} (200k) tasks are scheduled up front, due at
 * random instants spread evenly over {@code bench.spanMs} (10 s); each records the moment it starts
 * minus its due time, both read with {@link System#nanoTime()}. The due time is read before the
 * task is handed to the peer, so a peer that keeps its own promise never shows a negative figure: a
 * task that does is counted as an early start.
 *
 * <p>Beside the peers runs the floor control: no scheduler, one thread that parks until each due
 * time in turn and records how late it woke up. That is the latency of timed parking itself on
 * this machine, which no scheduler built on it can beat.
 *
 * <p>Peers run one at a time (2 workers), in an order rotated each round; the output gives, per peer,
 * the median over rounds of p50, p99, p99.9 and max with min-max, and the early starts. The floor
 * runs first unless the peer list names {@code floor} elsewhere. Ten rounds of {@code floor,lf,stpe}
 * take about 6 minutes at the full size; {@code -Dbench.tasks=60000 -Dbench.spanMs=3000} keeps the
 * rate of 20k tasks per second and takes about 2 minutes.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.Lateness [rounds] [peers]
 * </pre>
 */
public final class Lateness {

    static final String FLOOR = "floor";

    private Lateness() {}

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : (Sizes.smoke() ? 1 : 5);
        List<String> peers = peers(args.length > 1 ? args[1] : null);
        int tasks = Sizes.size("tasks", 200_000);
        long span = TimeUnit.MILLISECONDS.toNanos(Sizes.millis("span", 10_000));
        System.out.println("# LATENESS: " + tasks + " tasks over " + TimeUnit.NANOSECONDS.toMillis(span) + " ms, "
                + rounds + " rounds, JDK " + Runtime.version());

        Map<String, List<long[]>> results = new LinkedHashMap<>(); // per peer: {p50, p99, p999, max, early}
        for (int round = 0; round < rounds; round++) {
            for (String peer : Stats.rotated(peers, round)) {
                long[] latenesses = peer.equals(FLOOR) ? floor(tasks, span, round) : run(peer, tasks, span, round);
                long[] s = Stats.sorted(latenesses);
                long early = Arrays.stream(latenesses).filter(l -> l < 0).count();
                long[] row = {
                    Stats.percentile(s, 0.50),
                    Stats.percentile(s, 0.99),
                    Stats.percentile(s, 0.999),
                    s[s.length - 1],
                    early
                };
                results.computeIfAbsent(peer, k -> new ArrayList<>()).add(row);
                System.out.printf(
                        "round %d %-16s p50 %8.1f us  p99 %8.1f us  p99.9 %8.1f us  max %9.1f us  early %d%n",
                        round + 1, peer, row[0] / 1e3, row[1] / 1e3, row[2] / 1e3, row[3] / 1e3, early);
            }
        }
        System.out.println();
        System.out.println(table(results, rounds));
    }

    /**
     * The peers of a run: the list's, with {@code floor} where the list names it and first if it does
     * not, so that every round can be paired with a floor run of the same round.
     */
    static List<String> peers(String list) {
        List<String> peers = new ArrayList<>();
        if (list == null || list.isBlank() || list.equals("all")) {
            peers.add(FLOOR);
            peers.addAll(Peers.select(null, false));
            return peers;
        }
        List<String> named = Arrays.stream(list.split(",")).map(String::trim).toList();
        if (!named.contains(FLOOR)) {
            peers.add(FLOOR);
        }
        for (String name : named) {
            if (name.equals(FLOOR)) {
                peers.add(FLOOR);
            } else {
                peers.addAll(Peers.select(name, false));
            }
        }
        return peers;
    }

    static String table(Map<String, List<long[]>> results, int rounds) {
        StringBuilder out = new StringBuilder();
        out.append("# LATENESS, start minus due in microseconds, median [min-max] over ")
                .append(rounds)
                .append(" rounds; JDK ")
                .append(Runtime.version())
                .append('\n');
        out.append("| peer | p50 | p99 | p99.9 | max | early starts (total) | p50 - floor p50 | p99 / floor p99 |\n");
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        List<long[]> floorRows = results.get(FLOOR);
        for (Map.Entry<String, List<long[]>> entry : results.entrySet()) {
            List<long[]> rows = entry.getValue();
            List<Double> p50MinusFloor = new ArrayList<>();
            List<Double> p99OverFloor = new ArrayList<>();
            for (int i = 0; i < rows.size() && floorRows != null && i < floorRows.size(); i++) {
                p50MinusFloor.add((double) rows.get(i)[0] - floorRows.get(i)[0]);
                p99OverFloor.add((double) rows.get(i)[1] / Math.max(1, floorRows.get(i)[1]));
            }
            out.append("| ").append(entry.getKey());
            for (int column = 0; column < 4; column++) {
                out.append(" | ").append(Stats.range(column(rows, column), 1e3, 1));
            }
            long early = rows.stream().mapToLong(r -> r[4]).sum();
            out.append(" | ").append(early);
            out.append(" | ").append(Stats.range(p50MinusFloor, 1e3, 1));
            out.append(" | ").append(Stats.range(p99OverFloor, 1, 2));
            out.append(" |\n");
        }
        out.append("(p50 - floor p50 and p99 / floor p99 pair each run with the floor run of the same round)\n");
        return out.toString();
    }

    private static List<Double> column(List<long[]> rows, int column) {
        List<Double> values = new ArrayList<>();
        for (long[] row : rows) {
            values.add((double) row[column]);
        }
        return values;
    }

    /** Random offsets within the span, the same in every round for every peer of that round. */
    static long[] offsets(int tasks, long span, int round) {
        SplittableRandom random = new SplittableRandom(7919L * (round + 1));
        long[] offsets = new long[tasks];
        for (int i = 0; i < tasks; i++) {
            offsets[i] = random.nextLong(span);
        }
        return offsets;
    }

    /** A task that records how late it started. */
    static final class Probe extends BenchTask {
        final long[] latenesses;
        final int index;
        final CountDownLatch done;
        long due;

        Probe(long[] latenesses, int index, CountDownLatch done) {
            this.latenesses = latenesses;
            this.index = index;
            this.done = done;
        }

        @Override
        public void run() {
            latenesses[index] = System.nanoTime() - due;
            done.countDown();
        }
    }

    static long[] run(String peer, int tasks, long span, int round) throws InterruptedException {
        long[] offsets = offsets(tasks, span, round);
        long[] latenesses = new long[tasks];
        CountDownLatch done = new CountDownLatch(tasks);
        Probe[] probes = new Probe[tasks];
        for (int i = 0; i < tasks; i++) {
            probes[i] = new Probe(latenesses, i, done);
        }
        System.gc();
        try (SchedulerUnderTest scheduler = Peers.create(peer, 2)) {
            // Warm the peer's paths a little, off the record, and let its threads start.
            CountDownLatch warm = new CountDownLatch(1000);
            for (int i = 0; i < 1000; i++) {
                scheduler.schedule(warm::countDown, i * 10_000L);
            }
            warm.await(30, TimeUnit.SECONDS);
            // Leave time to hand every task over before the first is due.
            long start = System.nanoTime() + Math.max(TimeUnit.MILLISECONDS.toNanos(20), span / 10);
            for (int i = 0; i < tasks; i++) {
                Probe probe = probes[i];
                long now = System.nanoTime();
                probe.due = start + offsets[i];
                scheduler.schedule(probe, probe.due - now);
            }
            if (!done.await(span / 1_000_000 + 60_000, TimeUnit.MILLISECONDS)) {
                System.out.println("# " + peer + ": " + done.getCount() + " tasks never ran; they count as max");
            }
        }
        // Tasks that never ran would read as zero lateness: count them as the worst instead.
        if (done.getCount() > 0) {
            for (int i = 0; i < tasks; i++) {
                if (latenesses[i] == 0) {
                    latenesses[i] = Long.MAX_VALUE / 4;
                }
            }
        }
        return latenesses;
    }

    /** The control: one thread, no scheduler, parking until each due time in order. */
    static long[] floor(int tasks, long span, int round) {
        long[] offsets = offsets(tasks, span, round);
        Arrays.sort(offsets);
        long[] latenesses = new long[tasks];
        System.gc();
        long start = System.nanoTime() + Math.max(TimeUnit.MILLISECONDS.toNanos(20), span / 10);
        for (int i = 0; i < tasks; i++) {
            long due = start + offsets[i];
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            latenesses[i] = System.nanoTime() - due;
        }
        return latenesses;
    }
}
