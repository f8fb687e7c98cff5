package io.timedjobs.benchmarks.startup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe, used by {@link StartupCost}'s thread only (each child's reader aside). Starts a
 * variant's child JVM, reads its {@code STARTUP} line (see {@code startup.apps.Probe}) and stops it.
 */
final class Children {

    /** How long a child may take to become ready. */
    private static final long READY_SECONDS = 120;

    /** The message our library logs when a start takes over a name's row left by a process that died. */
    static final String TAKE_OVER = "takes over the name";

    /** {@code -Dbench.startupShowOutput=true} prints every line the children print, as it comes. */
    private static final boolean SHOW_OUTPUT = Boolean.getBoolean("bench.startupShowOutput");

    private Children() {}

    /** A variant's command line; {@code jars} is the number of class path entries besides the apps. */
    record Launch(String variant, List<String> command, int jars) {}

    /**
     * One start: JVM uptime when ready and Boot's own time taken (ms), RSS (kB), heap after a full
     * GC (bytes), classes loaded, the process's CPU time until ready (ms), and whether its log says it
     * took over a name's row.
     */
    record Sample(
            long uptimeMillis,
            long bootMillis,
            long rssKilobytes,
            long heapBytes,
            long classes,
            long cpuMillis,
            boolean tookOver) {
        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "ready %d ms (Boot: %d ms, CPU %d ms), heap %.1f MB, RSS %.1f MB, %d classes%s",
                    uptimeMillis,
                    bootMillis,
                    cpuMillis,
                    heapBytes / 1048576.0,
                    rssKilobytes / 1024.0,
                    classes,
                    tookOver ? ", took over a name's row" : "");
        }
    }

    /**
     * Starts the child, waits for its line, then sends {@code EXIT} and waits for it to stop; with
     * {@code afterKill}, first starts an unmeasured predecessor and kills it with SIGKILL once it is
     * ready. Returns null, with the child's last output printed, when a start fails.
     */
    static @Nullable Sample measure(Launch launch, boolean afterKill) throws IOException, InterruptedException {
        if (afterKill) {
            Child predecessor = new Child(launch);
            if (predecessor.awaitReady(launch) == null) {
                predecessor.process.destroyForcibly().waitFor();
                return null;
            }
            predecessor.process.destroyForcibly().waitFor();
        }
        Child child = new Child(launch);
        Sample sample = child.awaitReady(launch);
        child.stop();
        return sample;
    }

    /** A running child and its output. */
    private static final class Child {
        final Process process;
        final CompletableFuture<String> ready = new CompletableFuture<>();
        /** The last lines it printed, for a failure's report. */
        final Deque<String> tail = new ArrayDeque<>();

        volatile boolean tookOver;

        Child(Launch launch) throws IOException {
            process = new ProcessBuilder(launch.command())
                    .redirectErrorStream(true)
                    .start();
            Thread reader = new Thread(this::read, "startup-" + launch.variant());
            reader.setDaemon(true);
            reader.start();
        }

        private void read() {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith("STARTUP ")) {
                        ready.complete(line.substring(8));
                        continue;
                    }
                    if (SHOW_OUTPUT) {
                        System.out.println("  | " + line);
                    }
                    if (line.contains(TAKE_OVER)) {
                        tookOver = true;
                    }
                    synchronized (tail) {
                        tail.add(line);
                        if (tail.size() > 40) {
                            tail.poll();
                        }
                    }
                }
            } catch (IOException e) {
                // the child is gone; its exit is seen below
            } finally {
                ready.complete(null);
            }
        }

        @Nullable
        Sample awaitReady(Launch launch) throws InterruptedException {
            String line;
            try {
                line = ready.get(READY_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                line = null;
            }
            if (line == null) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
                System.out.println("  " + launch.variant() + " did not start; its last output:");
                synchronized (tail) {
                    tail.forEach(l -> System.out.println("  | " + l));
                }
                return null;
            }
            String[] f = line.split(" ");
            return new Sample(
                    Long.parseLong(f[0]),
                    Long.parseLong(f[1]),
                    Long.parseLong(f[2]),
                    Long.parseLong(f[3]),
                    Long.parseLong(f[4]),
                    Long.parseLong(f[5]),
                    tookOver);
        }

        void stop() throws InterruptedException {
            try {
                Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
                in.write("EXIT\n");
                in.flush();
            } catch (IOException e) {
                // gone already
            }
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }
}
