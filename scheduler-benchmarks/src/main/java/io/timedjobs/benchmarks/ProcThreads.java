package io.timedjobs.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-thread CPU time and context switches of this process, read from Linux's
 * {@code /proc/self/task}: {@code schedstat} gives nanoseconds on the CPU, {@code status} the
 * voluntary context switches (a thread that blocks and is woken again counts one) and the
 * involuntary ones (preempted). Threads are told apart by their name, which the JVM passes to the
 * kernel (cut to 15 characters).
 */
final class ProcThreads {

    static final Path TASKS = Paths.get("/proc/self/task");

    /** One thread's counters at one moment. */
    record Sample(String name, long cpuNanos, long voluntary, long involuntary) {}

    private ProcThreads() {}

    static boolean supported() {
        return Files.isDirectory(TASKS) && Files.exists(Paths.get("/proc/self/schedstat"));
    }

    /** A snapshot of every live thread, by Linux thread id. */
    static Map<Long, Sample> snapshot() {
        Map<Long, Sample> samples = new HashMap<>();
        if (!supported()) {
            return samples;
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim();
                    String schedstat =
                            Files.readString(task.resolve("schedstat")).trim();
                    long cpu = Long.parseLong(schedstat.split(" ")[0]);
                    long voluntary = 0;
                    long involuntary = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary = Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary = Long.parseLong(
                                    line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                    samples.put(
                            Long.parseLong(task.getFileName().toString()),
                            new Sample(name, cpu, voluntary, involuntary));
                } catch (IOException | RuntimeException threadEnded) {
                    // the thread ended while we read it: it has nothing more to count
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + TASKS, e);
        }
        return samples;
    }

    /** Sums of counters between two snapshots, over the threads whose name starts with a prefix. */
    record Delta(long cpuNanos, long voluntary, long involuntary, int threads) {}

    static Delta delta(Map<Long, Sample> before, Map<Long, Sample> after, List<String> prefixes) {
        long cpu = 0;
        long voluntary = 0;
        long involuntary = 0;
        int threads = 0;
        for (Map.Entry<Long, Sample> entry : after.entrySet()) {
            Sample now = entry.getValue();
            if (!matches(now.name(), prefixes)) {
                continue;
            }
            Sample then = before.getOrDefault(entry.getKey(), new Sample(now.name(), 0, 0, 0));
            cpu += now.cpuNanos() - then.cpuNanos();
            voluntary += now.voluntary() - then.voluntary();
            involuntary += now.involuntary() - then.involuntary();
            threads++;
        }
        return new Delta(cpu, voluntary, involuntary, threads);
    }

    private static boolean matches(String name, List<String> prefixes) {
        if (prefixes.isEmpty()) {
            return true;
        }
        for (String prefix : prefixes) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }
}
