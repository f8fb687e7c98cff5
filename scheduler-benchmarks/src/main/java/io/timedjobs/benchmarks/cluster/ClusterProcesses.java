package io.timedjobs.benchmarks.cluster;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.benchmarks.Sizes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.sql.DataSource;

/**
 * Not thread-safe, used by {@link ClusterBench}'s thread only (its readers of the children's output
 * aside). CLUSTER-DRAIN and CLUSTER-SPREAD with each instance in a JVM of its own, as separate
 * applications run ({@code -Dbench.clusterProcesses=true}): no shared heap, JIT or garbage
 * collector between the instances, and each process's own start-up on the machine's two cores.
 *
 * <p>The parent creates the peer's tables and starts one child per instance; each child starts its
 * instance on a pool of its own and says {@code READY}. Once all are ready, the parent sends the
 * first child the due instant ({@code SCHEDULE}), and it schedules every task through its instance;
 * the children report how many tasks they started, every 200 ms ({@code STARTED}). When the
 * started tasks cover them all (or after the same wait as in one JVM), the parent lets two seconds
 * pass for duplicates to show, then sends {@code STOP}: each child stops its instance and reports
 * each task it ran, with its first start there ({@code RAN}). Instants are the machine's one wall
 * clock; commits are the server's count, as in one JVM.
 */
final class ClusterProcesses {

    private static final String CHILD = "--child";

    private ClusterProcesses() {}

    /** Whether the cluster scenarios run each instance in a process of its own. */
    static boolean enabled() {
        return Boolean.getBoolean("bench.clusterProcesses");
    }

    /** One scenario on one peer, its instances in separate processes; returns as {@link ClusterBench#run}. */
    static double[] run(
            BenchDatabase database,
            int peerIndex,
            ClusterPeer peer,
            String scenario,
            int tasks,
            long spreadMillis,
            int instances)
            throws Exception {
        boolean drain = scenario.equals("drain");
        peer.createTables(database.pool("tables", 1));
        database.closePools();
        long commitsBefore = database.commits();
        HikariConfig connection = new HikariConfig();
        database.connect(connection);
        List<Child> children = new ArrayList<>();
        try {
            for (int i = 0; i < instances; i++) {
                children.add(Child.start(
                        database.kind(), peerIndex, i, ClusterBench.poolSize(instances), tasks, connection));
            }
            for (Child child : children) {
                if (!child.ready.await(2, TimeUnit.MINUTES) || !child.readied) {
                    throw new IllegalStateException("instance " + children.indexOf(child) + " did not start");
                }
            }
            // As in one JVM: far enough ahead that scheduling is done before the first task is due.
            Instant start = Instant.now().plusSeconds(Sizes.smoke() ? 2 : 8);
            children.get(0).send("SCHEDULE " + Executions.micros(start) + " " + scenario + " " + spreadMillis);
            long deadline = System.nanoTime()
                    + Duration.between(Instant.now(), start).toNanos()
                    + TimeUnit.MILLISECONDS.toNanos((drain ? 0 : spreadMillis) + TimeUnit.MINUTES.toMillis(3));
            while (children.stream().mapToLong(child -> child.started).sum() < tasks
                    && System.nanoTime() < deadline
                    && children.stream().allMatch(child -> child.process.isAlive())) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            TimeUnit.SECONDS.sleep(2); // stragglers and duplicates have a moment to show up
            Instant[] due = new Instant[tasks];
            ClusterBench.dueInstants(due, start, drain, spreadMillis);
            Executions executions = new Executions(due);
            for (Child child : children) {
                child.send("STOP");
            }
            for (Child child : children) {
                if (!child.done.await(2, TimeUnit.MINUTES) || !child.completed) {
                    throw new IllegalStateException(
                            "instance " + children.indexOf(child) + " did not report its executions");
                }
                for (int i = 0; i < tasks; i++) {
                    executions.merge(i, child.runs.get(i), child.firstStarts.get(i));
                }
            }
            for (Child child : children) {
                child.process.waitFor(1, TimeUnit.MINUTES);
            }
            long commits = database.commits() - commitsBefore;
            return ClusterBench.figures(executions, start, commits, drain);
        } finally {
            children.forEach(child -> child.process.destroyForcibly());
        }
    }

    /** A child process and what the parent reads of it. */
    private static final class Child {
        final Process process;
        final Writer input;
        final CountDownLatch ready = new CountDownLatch(1);
        final CountDownLatch done = new CountDownLatch(1);
        /** Per task: its runs in the child, and its first start there in epoch microseconds. */
        final AtomicIntegerArray runs;

        final AtomicLongArray firstStarts;

        volatile long started;

        /** Whether the child said READY, and DONE (set before the latches are released). */
        volatile boolean readied;

        volatile boolean completed;

        private Child(Process process, int tasks) {
            this.process = process;
            this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            this.runs = new AtomicIntegerArray(tasks);
            this.firstStarts = new AtomicLongArray(tasks);
        }

        static Child start(BenchDatabase.Kind kind, int peerIndex, int number, int poolSize, int tasks, HikariConfig db)
                throws IOException {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx1g");
            System.getProperties().stringPropertyNames().stream()
                    .filter(key -> key.startsWith("bench."))
                    .sorted()
                    .forEach(key -> command.add("-D" + key + "=" + System.getProperty(key)));
            command.addAll(List.of(
                    "-cp",
                    System.getProperty("java.class.path"),
                    ClusterProcesses.class.getName(),
                    CHILD,
                    kind.name(),
                    Integer.toString(peerIndex),
                    Integer.toString(number),
                    Integer.toString(poolSize),
                    Integer.toString(tasks),
                    db.getJdbcUrl(),
                    String.valueOf(db.getUsername()),
                    String.valueOf(db.getPassword())));
            Child child = new Child(
                    new ProcessBuilder(command).redirectErrorStream(true).start(), tasks);
            Thread reader = new Thread(() -> child.read(number), "child-" + number);
            reader.setDaemon(true);
            reader.start();
            return child;
        }

        void send(String line) throws IOException {
            input.write(line + "\n");
            input.flush();
        }

        /** Takes a line of the protocol; false for any other line (a log line, say). */
        private boolean take(String line) {
            try {
                if (line.equals("READY")) {
                    readied = true;
                    ready.countDown();
                } else if (line.startsWith("STARTED ")) {
                    started = Long.parseLong(line.substring(8));
                } else if (line.startsWith("RAN ")) {
                    String[] f = line.split(" ");
                    int task = Integer.parseInt(f[1]);
                    firstStarts.set(task, Long.parseLong(f[3]));
                    runs.set(task, Integer.parseInt(f[2]));
                } else if (line.equals("DONE")) {
                    completed = true;
                    done.countDown();
                } else {
                    return false;
                }
                return true;
            } catch (RuntimeException e) {
                return false; // not the protocol's after all
            }
        }

        private void read(int number) {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (!take(line)) {
                        System.out.println("  | " + number + " | " + line);
                    }
                }
            } catch (IOException e) {
                System.out.println("  | " + number + " | output lost: " + e);
            } finally {
                ready.countDown();
                done.countDown();
            }
        }
    }

    /**
     * A child: {@code --child kind peer number poolSize tasks url user password}; on any failure it
     * prints the cause and exits with 1, so that the parent does not wait for it. Reads its orders on
     * standard input, reports on standard output (lines the parent does not know it prints as they
     * come).
     */
    public static void main(String[] args) {
        try {
            child(args);
        } catch (Throwable e) {
            e.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        System.exit(0); // a peer's stray threads must not keep the child alive
    }

    private static void child(String[] args) throws Exception {
        if (args.length != 9 || !args[0].equals(CHILD)) {
            throw new IllegalArgumentException("Started by ClusterBench with -Dbench.clusterProcesses=true");
        }
        BenchDatabase.Kind kind = BenchDatabase.Kind.valueOf(args[1]);
        ClusterPeer peer =
                ClusterBench.peers(kind).get(Integer.parseInt(args[2])).get();
        int number = Integer.parseInt(args[3]);
        int tasks = Integer.parseInt(args[5]);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[6]);
        config.setUsername(args[7].equals("null") ? null : args[7]);
        config.setPassword(args[8].equals("null") ? null : args[8]);
        config.setPoolName("instance-" + number);
        config.setMaximumPoolSize(Integer.parseInt(args[4]));
        PrintStream out = System.out;
        Executions executions = new Executions(new Instant[tasks]);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            peer.startInstances(List.<DataSource>of(pool), number, executions);
            Thread progress = new Thread(
                    () -> {
                        try {
                            while (true) {
                                TimeUnit.MILLISECONDS.sleep(200);
                                synchronized (out) {
                                    out.println("STARTED " + executions.startedCount());
                                }
                            }
                        } catch (InterruptedException e) {
                            // the child is done
                        }
                    },
                    "progress");
            progress.setDaemon(true);
            progress.start();
            synchronized (out) {
                out.println("READY");
            }
            BufferedReader orders = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String order;
            while ((order = orders.readLine()) != null && !order.equals("STOP")) {
                if (order.startsWith("SCHEDULE ")) {
                    String[] f = order.split(" ");
                    long micros = Long.parseLong(f[1]);
                    Instant start = Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1_000);
                    Instant[] due = new Instant[tasks];
                    ClusterBench.dueInstants(due, start, f[2].equals("drain"), Long.parseLong(f[3]));
                    peer.scheduleAll(due);
                    if (Instant.now().isAfter(start)) {
                        synchronized (out) {
                            out.println("# " + peer.name() + ": scheduling took longer than the lead");
                        }
                    }
                }
            }
            peer.close();
            progress.interrupt();
            synchronized (out) {
                for (int i = 0; i < tasks; i++) {
                    int runs = executions.runs(i);
                    if (runs > 0) {
                        out.println("RAN " + i + " " + runs + " " + executions.firstStartMicros(i));
                    }
                }
                out.println("DONE");
                out.flush();
            }
        }
    }
}
