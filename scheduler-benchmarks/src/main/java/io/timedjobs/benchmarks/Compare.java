package io.timedjobs.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs JMH benchmarks with the peers interleaved and prints each one's rate beside the JDK's.
 *
 * <p>Takes JMH's own command line. {@code -f N} (default 5) becomes N rounds; each round runs one
 * fork per peer, in an order rotated every round, so slow drift of the machine spreads over all
 * peers instead of landing on whichever JMH would run last. {@code -p peer=a,b} picks peers (default:
 * all this JVM can run). At the end it prints, per benchmark, every peer's median rate over the forks
 * with min-max, and its ratio to {@code stpe} (and to {@code stpe-roc} for churn) of the same run.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.Compare Insert -f 5
 * </pre>
 */
public final class Compare {

    private Compare() {}

    public static void main(String[] args) throws CommandLineOptionException, RunnerException {
        CommandLineOptions cmd = new CommandLineOptions(args);
        int forks = cmd.getForkCount().orElse(5);
        org.openjdk.jmh.util.Optional<Collection<String>> chosen = cmd.getParameter("peer");
        List<String> peers =
                chosen.hasValue() ? Peers.select(String.join(",", chosen.get()), false) : Peers.available(false);
        List<String> jvmArgs = new ArrayList<>(cmd.getJvmArgsAppend().orElse(new ArrayList<>()));
        System.getProperties().stringPropertyNames().stream()
                .filter(key -> key.startsWith("bench."))
                .sorted()
                .forEach(key -> jvmArgs.add("-D" + key + "=" + System.getProperty(key)));

        Map<String, Map<String, List<Double>>> rates = new LinkedHashMap<>();
        int rounds = Math.max(1, forks);
        for (int round = 0; round < rounds; round++) {
            for (String peer : Stats.rotated(peers, round)) {
                Options options = new OptionsBuilder()
                        .parent(cmd)
                        .forks(forks == 0 ? 0 : 1)
                        .param("peer", peer)
                        .jvmArgsAppend(jvmArgs.toArray(new String[0]))
                        .build();
                for (RunResult result : new Runner(options).run()) {
                    rates.computeIfAbsent(key(result.getParams()), k -> new LinkedHashMap<>())
                            .computeIfAbsent(peer, k -> new ArrayList<>())
                            .add(opsPerSecond(result));
                }
            }
        }
        System.out.println();
        System.out.println(table(rates, rounds, forks));
    }

    /** The benchmark and its parameters other than the peer: what one table row compares. */
    static String key(BenchmarkParams params) {
        String name = params.getBenchmark();
        name = name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1);
        StringBuilder key = new StringBuilder(name);
        for (String p : params.getParamsKeys()) {
            if (!p.equals("peer")) {
                key.append(' ').append(p).append('=').append(params.getParam(p));
            }
        }
        return key.toString();
    }

    /** Operations per second over all threads, whatever mode and unit JMH reported. */
    static double opsPerSecond(RunResult result) {
        double score = result.getPrimaryResult().getScore();
        String unit = result.getPrimaryResult().getScoreUnit();
        BenchmarkParams params = result.getParams();
        double perSecond;
        if (unit.endsWith("/op")) {
            double nanos = score * nanosPer(unit.substring(0, unit.indexOf('/')));
            perSecond = params.getThreads() * 1e9 / nanos;
        } else {
            perSecond = score / (nanosPer(unit.substring(unit.indexOf('/') + 1)) / 1e9);
        }
        if (params.getBenchmark().contains("InsertBenchmark")) {
            // @OperationsPerInvocation says 100,000; a smaller bench.batch makes each call do fewer.
            perSecond *= InsertBenchmark.BATCH / 100_000.0;
        }
        return perSecond;
    }

    private static double nanosPer(String unit) {
        switch (unit) {
            case "ns":
                return 1;
            case "us":
                return 1e3;
            case "ms":
                return 1e6;
            case "s":
                return 1e9;
            case "min":
                return 60e9;
            default:
                throw new IllegalArgumentException("Unknown time unit " + unit);
        }
    }

    static String table(Map<String, Map<String, List<Double>>> rates, int rounds, int forks) {
        StringBuilder out = new StringBuilder();
        out.append("# ")
                .append(forks == 0 ? "in-process (no fork), smoke only" : rounds + " forks per peer, interleaved")
                .append("; JDK ")
                .append(Runtime.version())
                .append('\n');
        out.append("| benchmark | peer | Mops/s median [min-max] | x stpe | x stpe-roc |\n");
        out.append("| --- | --- | --- | --- | --- |\n");
        for (Map.Entry<String, Map<String, List<Double>>> row : rates.entrySet()) {
            Map<String, List<Double>> byPeer = row.getValue();
            double stpe = Stats.median(byPeer.getOrDefault(Peers.STPE, List.of()));
            double roc = Stats.median(byPeer.getOrDefault(Peers.STPE_ROC, List.of()));
            for (Map.Entry<String, List<Double>> peer : byPeer.entrySet()) {
                double median = Stats.median(peer.getValue());
                out.append("| ")
                        .append(row.getKey())
                        .append(" | ")
                        .append(peer.getKey())
                        .append(" | ")
                        .append(Stats.range(peer.getValue(), 1e6, 3))
                        .append(" | ")
                        .append(Stats.ratio(median, stpe))
                        .append(" | ")
                        .append(Stats.ratio(median, roc))
                        .append(" |\n");
            }
        }
        return out.toString();
    }
}
