package io.timedjobs.benchmarks.cluster;

import io.timedjobs.benchmarks.Sizes;
import io.timedjobs.benchmarks.Stats;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * REMOTE-START: how late a durable task starts when one instance schedules it and another, idle
 * until then, runs it. Used by the benchmark thread only.
 *
 * <p>On one embedded PostgreSQL, a producer (an engine with the handler that is not started, so it
 * claims nothing) schedules {@code bench.remoteTasks} (100) tasks one at a time, each due 100 to
 * 1,000 ms ahead, 200 to 600 ms apart; the runner, started with the default settings (5 s
 * lookahead, 1 s poll, 30 s lease), runs them. Once with the runner listening for announcements
 * (the default), once polling at every interval ({@code listen(false)}). Printed: lateness (start
 * less due instant, on this JVM's clock) p50, p99 and max, and tasks started early.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.cluster.RemoteStart [rounds]
 * </pre>
 */
public final class RemoteStart {

    private static final String HANDLER = "bench";

    private RemoteStart() {}

    public static void main(String[] args) throws Exception {
        compare(args);
        System.exit(0); // the engines' stray threads must not keep the run alive
    }

    public static void compare(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        int tasks = Sizes.size("remoteTasks", 100);
        System.out.printf(
                "# REMOTE-START: %d tasks scheduled elsewhere, %d rounds, JDK %s%n", tasks, rounds, Runtime.version());
        List<List<Double>> p50 = List.of(new ArrayList<>(), new ArrayList<>());
        List<List<Double>> p99 = List.of(new ArrayList<>(), new ArrayList<>());
        try (PostgresBenchDatabase database = new PostgresBenchDatabase()) {
            for (int round = 0; round < rounds; round++) {
                for (int mode = 0; mode < 2; mode++) {
                    boolean listen = mode == 0;
                    long[] lateness = run(database, tasks, listen);
                    Arrays.sort(lateness);
                    long early =
                            Arrays.stream(lateness).filter(micros -> micros < 0).count();
                    p50.get(mode).add(Stats.percentile(lateness, 0.5) / 1000.0);
                    p99.get(mode).add(Stats.percentile(lateness, 0.99) / 1000.0);
                    System.out.printf(
                            Locale.ROOT,
                            "round %d %-16s lateness ms p50 %.2f p99 %.2f max %.2f, early %d of %d%n",
                            round + 1,
                            listen ? "listening" : "polling",
                            Stats.percentile(lateness, 0.5) / 1000.0,
                            Stats.percentile(lateness, 0.99) / 1000.0,
                            lateness[lateness.length - 1] / 1000.0,
                            early,
                            lateness.length);
                }
            }
        }
        System.out.println();
        System.out.println("| runner | lateness p50 ms | p99 ms |");
        System.out.println("| --- | --- | --- |");
        for (int mode = 0; mode < 2; mode++) {
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %s |%n",
                    mode == 0 ? "listening (default)" : "polling every 1 s",
                    Stats.range(p50.get(mode), 1, 2),
                    Stats.range(p99.get(mode), 1, 2));
        }
    }

    /** One pass; returns each task's lateness in microseconds. */
    private static long[] run(PostgresBenchDatabase database, int count, boolean listen) throws Exception {
        DataSource runnerPool = database.pool("runner", 4);
        DataSource producerPool = database.pool("producer", 4);
        ClusterDatabase runnerDatabase = ClusterDatabase.of(runnerPool, TableNames.defaults());
        new SchemaInitializer(runnerDatabase).initialize(SchemaInitializer.Mode.ALWAYS);
        ConcurrentLinkedQueue<Long> lateness = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(count);
        DurableTaskEngine runner = DurableTaskEngine.builder(runnerDatabase)
                .instanceName("runner")
                .handler(HANDLER, new DurableTaskHandler<String>() {
                    @Override
                    public Class<String> payloadType() {
                        return String.class;
                    }

                    @Override
                    public void handle(DurableTask<String> task) {
                        lateness.add(
                                Duration.between(task.fireAt(), Instant.now()).toNanos() / 1000);
                        done.countDown();
                    }
                })
                .listen(listen)
                .build();
        DurableTaskEngine producer = DurableTaskEngine.builder(ClusterDatabase.of(producerPool, TableNames.defaults()))
                .instanceName("producer")
                .handler(HANDLER, new DurableTaskHandler<String>() {
                    @Override
                    public Class<String> payloadType() {
                        return String.class;
                    }

                    @Override
                    public void handle(DurableTask<String> task) {}
                })
                .build(); // never started: it schedules, and claims nothing
        runner.start();
        try {
            Thread.sleep(3000); // the runner registers, finds nothing due, and goes idle
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < count; i++) {
                Instant due = Instant.now().plusMillis(100 + random.nextInt(900));
                producer.tasks().schedule(HANDLER, "t" + i, due, null);
                Thread.sleep(200 + random.nextInt(400));
            }
            if (!done.await(60, TimeUnit.SECONDS)) {
                System.out.printf("# %d of %d tasks did not run within 60 s%n", done.getCount(), count);
            }
        } finally {
            runner.stop(Duration.ofSeconds(5));
            database.closePools();
        }
        return lateness.stream().mapToLong(Long::longValue).toArray();
    }
}
