package io.timedjobs.benchmarks.startup;

import io.timedjobs.benchmarks.Sizes;
import io.timedjobs.benchmarks.cluster.PeerTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe, run from {@code main} only. STARTUP: what Timed Jobs' starter and
 * {@code scheduler-jdbc} add to a Spring Boot application's start, beside Boot's own scheduler and
 * each peer's Spring integration. Each start is a fresh JVM running a one-job application
 * ({@code startup.apps}) on its variant's own class path ({@link ClassPaths}); the variants take
 * turns, in an order rotated by one each round, after one warm-up round that is not counted. The
 * embedded PostgreSQL runs in this process, so a child's figures are the application's own.
 *
 * <pre>
 * java -cp scheduler-benchmarks/target/benchmarks.jar io.timedjobs.benchmarks.startup.StartupCost 5
 * java -cp ... StartupCost 5 boot,timed-jobs,timed-jobs-jdbc-pg
 * </pre>
 *
 * <p>{@code -Dbench.startupJvmArgs="-Xmx256m ..."} gives the children JVM options (none by default),
 * {@code -Dbench.java=/path/to/bin/java} another JDK.
 */
public final class StartupCost {

    private StartupCost() {}

    public static void main(String[] args) throws Exception {
        boolean ok = compare(args);
        System.exit(ok ? 0 : 1);
    }

    /**
     * Runs {@code [rounds] [variants]} and prints the table; returns whether every start succeeded
     * (a failed start is reported, never thrown, so that a smoke run goes on).
     */
    public static boolean compare(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        List<Variant> variants = select(args.length > 1 ? args[1] : null);
        ClassPaths classPaths = ClassPaths.load();
        Path apps = AppClasses.copy();
        List<String> jvmArgs = jvmArgs();
        boolean postgres = variants.stream().anyMatch(v -> v.database() == Variant.Database.POSTGRESQL);
        System.out.printf(
                "# STARTUP: %d rounds%s, %s, JDK %s, child JVM options %s%n",
                rounds,
                Sizes.smoke() ? " (smoke, no warm-up)" : " after a warm-up round",
                String.join(",", variants.stream().map(Variant::name).toList()),
                System.getProperty("java.version"),
                jvmArgs.isEmpty() ? "none" : String.join(" ", jvmArgs));
        // Built without -am, Maven takes our modules from the local repository, not from this checkout.
        System.out.println("# our modules from: " + classPaths.file(Variant.OUR_JDBC));
        try (EmbeddedPostgres server = postgres ? EmbeddedPostgres.builder().start() : null) {
            String url = server == null ? "" : server.getJdbcUrl("postgres", "postgres");
            if (server != null) {
                createPeerTables(server.getPostgresDatabase());
            }
            Map<String, Children.Launch> launches = new LinkedHashMap<>();
            for (Variant variant : variants) {
                launches.put(variant.name(), launch(variant, classPaths, apps, jvmArgs, url));
            }
            Map<String, List<Children.Sample>> samples = new LinkedHashMap<>();
            variants.forEach(v -> samples.put(v.name(), new ArrayList<>()));
            int failed = 0;
            for (int round = Sizes.smoke() ? 1 : 0; round <= rounds; round++) {
                for (int i = 0; i < variants.size(); i++) {
                    Variant variant = variants.get((i + round) % variants.size());
                    Children.Sample sample = Children.measure(launches.get(variant.name()), variant.afterKill());
                    System.out.printf(
                            "  round %d%s %-36s %s%n", round, round == 0 ? " (warm-up)" : "", variant.name(), sample);
                    if (sample == null) {
                        failed++;
                    } else if (round > 0) {
                        samples.get(variant.name()).add(sample);
                    }
                }
            }
            Report.print(variants, samples, rounds);
            if (failed > 0) {
                System.out.println("# STARTUP: " + failed + " start(s) failed; their output is above");
            }
            return failed == 0;
        }
    }

    private static List<Variant> select(@Nullable String names) {
        List<Variant> all = Variant.all();
        if (names == null) {
            return all;
        }
        List<Variant> chosen = new ArrayList<>();
        for (String name : names.split(",")) {
            if (chosen.stream().anyMatch(v -> v.name().equals(name.strip()))) {
                throw new IllegalArgumentException("STARTUP variant '" + name + "' named twice");
            }
            chosen.add(all.stream()
                    .filter(v -> v.name().equals(name.strip()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no STARTUP variant '" + name + "'; known: "
                            + String.join(",", all.stream().map(Variant::name).toList()))));
        }
        return chosen;
    }

    private static List<String> jvmArgs() {
        String given = System.getProperty("bench.startupJvmArgs", "").strip();
        return given.isEmpty() ? List.of() : Arrays.asList(given.split("\\s+"));
    }

    private static void createPeerTables(DataSource setup) throws Exception {
        PeerTables.dbScheduler(setup);
        PeerTables.shedLock(setup);
        PeerTables.quartz(setup);
    }

    private static Children.Launch launch(
            Variant variant, ClassPaths classPaths, Path apps, List<String> jvmArgs, String url) {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty(
                "bench.java",
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmArgs);
        List<String> path = new ArrayList<>();
        path.add(apps.toString());
        path.addAll(classPaths.closure(variant.roots()));
        command.add("-cp");
        command.add(String.join(File.pathSeparator, path));
        command.add("io.timedjobs.benchmarks.startup.apps." + variant.app());
        variant.args().forEach(arg -> command.add(arg.replace("${url}", url)));
        command.add("--spring.main.banner-mode=off");
        return new Children.Launch(variant.name(), command, path.size() - 1);
    }
}
