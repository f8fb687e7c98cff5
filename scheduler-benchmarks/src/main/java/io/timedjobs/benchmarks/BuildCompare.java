package io.timedjobs.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Sums up a run of {@code compare.sh}: two builds of this jar, each scenario run once per round for
 * each build. Used only by that script, on its output directory; single-threaded.
 *
 * <p>The directory holds one file per run, named {@code r<round>-<build>-<scenario>.txt}, each the
 * output of one scenario command. Every Markdown table in a file is read: the leading cells that are
 * not numbers name the row (benchmark, peer), and each later cell that starts with a number is one
 * sample of the metric its header names ({@code 12.3 [..]} gives 12.3, {@code 4.56x} gives 4.56). The
 * result is one table per scenario: per row and metric, the median [min-max] over the rounds for each
 * build and the ratio of the medians. The {@code x stpe} columns are each run's ratio to the JDK's
 * executor of the same run, so their rows compare the builds by a figure that the machine's drift
 * cancels out of.
 *
 * <pre>
 * java -cp benchmarks.jar io.timedjobs.benchmarks.BuildCompare DIR [before-name] [after-name]
 * </pre>
 */
public final class BuildCompare {

    private static final Pattern RUN = Pattern.compile("r(\\d+)-([A-Za-z0-9_.]+)-([a-z0-9-]+)\\.txt");
    private static final Pattern NUMBER = Pattern.compile("^-?\\d+(\\.\\d+)?");

    private BuildCompare() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            throw new IllegalArgumentException("Usage: BuildCompare DIR [before-name] [after-name]");
        }
        Path dir = Path.of(args[0]);
        String before = args.length > 1 ? args[1] : "before";
        String after = args.length > 2 ? args[2] : "after";
        // scenario -> "row | metric" -> build -> samples, rows kept in first-seen order per scenario
        Map<String, Map<String, Map<String, List<Double>>>> samples = new TreeMap<>();
        Map<String, List<String>> order = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.sorted().toList();
        }
        int runs = 0;
        for (Path file : files) {
            Matcher name = RUN.matcher(file.getFileName().toString());
            if (!name.matches()) {
                continue;
            }
            runs++;
            String build = name.group(2);
            String scenario = name.group(3);
            for (String[] sample : parse(Files.readAllLines(file, StandardCharsets.UTF_8))) {
                String key = sample[0] + " | " + sample[1];
                List<String> keys = order.computeIfAbsent(scenario, k -> new ArrayList<>());
                if (!keys.contains(key)) {
                    keys.add(key);
                }
                samples.computeIfAbsent(scenario, k -> new TreeMap<>())
                        .computeIfAbsent(key, k -> new TreeMap<>())
                        .computeIfAbsent(build, k -> new ArrayList<>())
                        .add(Double.parseDouble(sample[2]));
            }
        }
        if (runs == 0) {
            throw new IllegalArgumentException("No r<round>-<build>-<scenario>.txt files in " + dir);
        }
        for (Map.Entry<String, List<String>> scenario : order.entrySet()) {
            System.out.println();
            System.out.println("## " + scenario.getKey() + ": median [min-max] over rounds; " + after + " / " + before
                    + " is the ratio of the medians");
            System.out.println("| row | metric | " + before + " | " + after + " | " + after + " / " + before + " |");
            System.out.println("| --- | --- | --- | --- | --- |");
            for (String key : scenario.getValue()) {
                Map<String, List<Double>> byBuild =
                        samples.get(scenario.getKey()).get(key);
                List<Double> b = byBuild.getOrDefault(before, List.of());
                List<Double> a = byBuild.getOrDefault(after, List.of());
                System.out.println("| " + key + " | " + Stats.range(b, 1, 3) + " | " + Stats.range(a, 1, 3) + " | "
                        + (a.isEmpty() || b.isEmpty() ? "n/a" : Stats.ratio(Stats.median(a), Stats.median(b)))
                        + " |");
            }
        }
    }

    /** Every numeric cell of every Markdown table in the lines: {row, metric, value}. */
    static List<String[]> parse(List<String> lines) {
        List<String[]> out = new ArrayList<>();
        String[] header = null;
        for (String line : lines) {
            String trimmed = line.trim();
            if (!trimmed.startsWith("|")) {
                header = null;
                continue;
            }
            String[] cells = cells(trimmed);
            if (header == null) {
                header = cells;
                continue;
            }
            if (cells.length > 0 && cells[0].startsWith("---")) {
                continue;
            }
            StringBuilder row = new StringBuilder();
            int column = 0;
            while (column < cells.length && !NUMBER.matcher(cells[column]).find()) {
                row.append(row.length() == 0 ? "" : " ").append(cells[column]);
                column++;
            }
            for (; column < cells.length && column < header.length; column++) {
                Matcher number = NUMBER.matcher(cells[column]);
                if (number.find()) {
                    String metric = header[column].replace(" median [min-max]", "");
                    out.add(new String[] {row.toString(), metric, number.group()});
                }
            }
        }
        return out;
    }

    private static String[] cells(String line) {
        String inner = line.substring(1, line.endsWith("|") && line.length() > 1 ? line.length() - 1 : line.length());
        String[] cells = inner.split("\\|", -1);
        for (int i = 0; i < cells.length; i++) {
            cells[i] = cells[i].trim();
        }
        return cells;
    }
}
