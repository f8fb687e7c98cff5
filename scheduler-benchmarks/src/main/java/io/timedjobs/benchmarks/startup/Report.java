package io.timedjobs.benchmarks.startup;

import io.timedjobs.benchmarks.Stats;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/** Stateless. Prints the STARTUP table: medians with ranges, and ratios to Boot's own scheduler. */
final class Report {

    private static final String BASE = "boot";

    private Report() {}

    static void print(List<Variant> variants, Map<String, List<Children.Sample>> samples, int rounds) {
        List<Children.Sample> base = samples.getOrDefault(BASE, List.of());
        System.out.printf(
                "%n## STARTUP, %d rounds: medians [min-max]; ratios are medians over Boot's own scheduler's (%s)%n%n",
                rounds, base.isEmpty() ? "not in this run" : BASE);
        System.out.println(
                "| variant | starts | JVM start to ready, ms | Boot's \"Started in\", ms | CPU until ready, ms"
                        + " | heap after full GC, MB | RSS when ready, MB | classes loaded | ready / boot | CPU / boot"
                        + " | heap / boot | RSS / boot |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (Variant variant : variants) {
            List<Children.Sample> s = samples.get(variant.name());
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    variant.name(),
                    s.size(),
                    range(s, Children.Sample::uptimeMillis, 1, 0),
                    range(s, Children.Sample::bootMillis, 1, 0),
                    range(s, Children.Sample::cpuMillis, 1, 0),
                    range(s, Children.Sample::heapBytes, 1048576.0, 1),
                    range(s, Children.Sample::rssKilobytes, 1024.0, 1),
                    range(s, Children.Sample::classes, 1, 0),
                    ratio(s, base, Children.Sample::uptimeMillis),
                    ratio(s, base, Children.Sample::cpuMillis),
                    ratio(s, base, Children.Sample::heapBytes),
                    ratio(s, base, Children.Sample::rssKilobytes));
        }
        System.out.println();
        for (Variant variant : variants) {
            if (variant.afterKill()) {
                List<Children.Sample> s = samples.get(variant.name());
                long tookOver = s.stream().filter(Children.Sample::tookOver).count();
                System.out.printf(
                        Locale.ROOT,
                        "%s: each start right after a predecessor killed with SIGKILL once ready;"
                                + " %d of %d starts took over a row left under their name (a lease watch)%n",
                        variant.name(),
                        tookOver,
                        s.size());
            }
        }
    }

    private static List<Double> values(List<Children.Sample> samples, ToLongFunction<Children.Sample> figure) {
        return samples.stream().map(s -> (double) figure.applyAsLong(s)).toList();
    }

    private static String range(
            List<Children.Sample> samples, ToLongFunction<Children.Sample> figure, double scale, int decimals) {
        return samples.isEmpty() ? "failed" : Stats.range(values(samples, figure), scale, decimals);
    }

    private static String ratio(
            List<Children.Sample> samples, List<Children.Sample> base, ToLongFunction<Children.Sample> figure) {
        if (samples.isEmpty() || base.isEmpty()) {
            return "n/a";
        }
        return String.format(
                Locale.ROOT, "%.2fx", Stats.median(values(samples, figure)) / Stats.median(values(base, figure)));
    }
}
