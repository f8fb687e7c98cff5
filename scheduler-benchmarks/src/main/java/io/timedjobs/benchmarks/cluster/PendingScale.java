package io.timedjobs.benchmarks.cluster;

import io.timedjobs.benchmarks.Sizes;
import io.timedjobs.benchmarks.Stats;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * PENDING-SCALE: whether the durable claims keep their cost when millions of tasks wait. Used by
 * the benchmark thread only.
 *
 * <p>For each backlog size ({@code bench.pendingSizes}, default 10k, 1M and 10M), the tasks table
 * is filled with that many tasks due days ahead (PostgreSQL's {@code generate_series}, then
 * {@code ANALYZE}), then {@code bench.pendingDue} (10k) tasks due at one instant are written by SQL
 * as well (so that no instance claims them one by one after scheduling them, as {@code schedule}
 * does for a task due within the lookahead) and drained by our peer's instances ({@code
 * bench.pendingInstances}, 2) through their batch claims. Printed per size: executions per second
 * from the due instant, the batch claim's mean and total time from {@code pg_stat_statements}, and
 * the table's live and dead rows after the drain.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.cluster.PendingScale [rounds]
 * </pre>
 */
public final class PendingScale {

    private PendingScale() {}

    public static void main(String[] args) throws Exception {
        compare(args);
        System.exit(0); // the engines' stray threads must not keep the run alive
    }

    public static void compare(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        long[] sizes = Arrays.stream(System.getProperty(
                                "bench.pendingSizes", Sizes.smoke() ? "1000,20000" : "10000,1000000,10000000")
                        .split(","))
                .map(String::trim)
                .mapToLong(Long::parseLong)
                .toArray();
        int due = Sizes.size("pendingDue", 10_000);
        int instances = Integer.getInteger("bench.pendingInstances", 2);
        System.out.printf(
                "# PENDING-SCALE: backlogs %s, %d tasks drained, %d instances, %d rounds, JDK %s%n",
                Arrays.toString(sizes), due, instances, rounds, Runtime.version());
        Map<Long, List<double[]>> results = new LinkedHashMap<>();
        try (PostgresBenchDatabase database = new PostgresBenchDatabase(true)) {
            for (int round = 0; round < rounds; round++) {
                for (long size : sizes) {
                    double[] r = run(database, size, due, instances);
                    results.computeIfAbsent(size, k -> new ArrayList<>()).add(r);
                    System.out.printf(
                            Locale.ROOT,
                            "round %d backlog %,d: %.0f exec/s, claim mean %.3f ms over %.0f calls (total %.0f ms),"
                                    + " live %.0f dead %.0f after the drain, lost %.0f%n",
                            round + 1,
                            size,
                            r[0],
                            r[1],
                            r[2],
                            r[3],
                            r[4],
                            r[5],
                            r[6]);
                }
            }
        }
        System.out.println();
        System.out.println("| pending backlog | exec/s | claim mean ms | claim calls | dead rows after | lost |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        for (var entry : results.entrySet()) {
            System.out.printf(
                    Locale.ROOT,
                    "| %,d | %s | %s | %s | %s | %s |%n",
                    entry.getKey(),
                    column(entry.getValue(), 0, 0),
                    column(entry.getValue(), 1, 3),
                    column(entry.getValue(), 2, 0),
                    column(entry.getValue(), 5, 0),
                    column(entry.getValue(), 6, 0));
        }
    }

    /**
     * One backlog size. Returns {exec/s from the due instant, claim mean ms, claim calls, claim total
     * ms, live rows, dead rows, lost}.
     */
    static double[] run(PostgresBenchDatabase database, long backlog, int dueCount, int instances) throws Exception {
        List<DataSource> pools = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            pools.add(database.pool("instance-" + i, ClusterBench.POOL_SIZE));
        }
        Instant[] due = new Instant[dueCount];
        Executions executions = new Executions(due);
        TimedJobsPeer peer = new TimedJobsPeer();
        try {
            peer.start(pools, executions);
            fill(pools.get(0), backlog);
            database.resetStatementStats();
            Instant start = Instant.now().plusSeconds(Sizes.smoke() ? 2 : 5);
            Arrays.fill(due, start);
            writeDue(pools.get(0), dueCount, start);
            executions
                    .allStarted()
                    .await(start.toEpochMilli() - System.currentTimeMillis() + 180_000, TimeUnit.MILLISECONDS);
            double rate = executions.tasks() / ((executions.lastStartMicros() - Executions.micros(start)) / 1e6);
            double[] claims = claimStats(pools.get(0));
            peer.close();
            double[] rows = rows(pools.get(0));
            return new double[] {rate, claims[0], claims[1], claims[2], rows[0], rows[1], executions.lost()};
        } finally {
            peer.close();
            database.closePools();
        }
    }

    /** Adds {@code backlog} pending tasks due from one day ahead on, in chunks of a million. */
    private static void fill(DataSource dataSource, long backlog) throws SQLException {
        long began = System.nanoTime();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (long from = 1; from <= backlog; from += 1_000_000) {
                long to = Math.min(backlog, from + 999_999);
                s.execute("INSERT INTO timed_jobs_tasks (handler, task_key, fire_at, due_at, state, attempts,"
                        + " claim_version, created_at) SELECT 'bench', 'backlog-' || i,"
                        + " now() + interval '1 day' + i * interval '1 millisecond',"
                        + " now() + interval '1 day' + i * interval '1 millisecond', 'PENDING', 0, 0, now()"
                        + " FROM generate_series(" + from + ", " + to + ") AS i");
            }
            s.execute("ANALYZE timed_jobs_tasks");
        }
        System.out.printf(
                Locale.ROOT,
                "# backlog of %,d filled and analyzed in %.1f s%n",
                backlog,
                (System.nanoTime() - began) / 1e9);
    }

    /** Writes tasks "0" to "count - 1" of the peer's handler, due at {@code at}, in one statement. */
    private static void writeDue(DataSource dataSource, int count, Instant at) throws SQLException {
        try (Connection c = dataSource.getConnection();
                java.sql.PreparedStatement s = c.prepareStatement("INSERT INTO timed_jobs_tasks (handler, task_key,"
                        + " fire_at, due_at, state, attempts, claim_version, created_at) SELECT 'bench', CAST(i AS TEXT),"
                        + " ?, ?, 'PENDING', 0, 0, now() FROM generate_series(0, ?) AS i")) {
            java.time.OffsetDateTime due = at.atOffset(java.time.ZoneOffset.UTC);
            s.setObject(1, due);
            s.setObject(2, due);
            s.setInt(3, count - 1);
            s.executeUpdate();
        }
        // Written by SQL, the tasks are announced as the engine's own scheduling would: instances that
        // sleep while nothing is due wake for a poll.
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_notify('timed_jobs_tasks', 'poll')");
        }
    }

    /** {mean ms, calls, total ms} of the batch claim of due tasks since the last reset. */
    private static double[] claimStats(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT coalesce(sum(calls), 0), coalesce(sum(total_exec_time), 0)"
                        + " FROM pg_stat_statements WHERE query ILIKE '%SKIP LOCKED%'"
                        + " AND query ILIKE '%ORDER BY due_at%' AND query NOT ILIKE '%lease_until <%'"
                        + " AND query NOT ILIKE '%pg_stat_statements%'")) {
            r.next();
            double calls = r.getDouble(1);
            double total = r.getDouble(2);
            return new double[] {calls == 0 ? Double.NaN : total / calls, calls, total};
        }
    }

    /** {live, dead} rows of the tasks table, as the statistics collector last saw them. */
    private static double[] rows(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet r = s.executeQuery(
                    "SELECT n_live_tup, n_dead_tup FROM pg_stat_user_tables WHERE relname = 'timed_jobs_tasks'")) {
                return r.next() ? new double[] {r.getDouble(1), r.getDouble(2)} : new double[] {Double.NaN, Double.NaN};
            }
        }
    }

    private static String column(List<double[]> rounds, int index, int decimals) {
        List<Double> values = rounds.stream().map(r -> r[index]).toList();
        return Stats.range(values, 1, decimals);
    }
}
