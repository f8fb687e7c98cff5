package io.timedjobs.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the summary of two builds reads the scenarios' tables, and what it prints. */
class BuildCompareTest {

    private static final List<String> CHURN_TABLE = List.of(
            "# 1 forks per peer, interleaved; JDK 17",
            "| benchmark | peer | Mops/s median [min-max] | x stpe | x stpe-roc |",
            "| --- | --- | --- | --- | --- |",
            "| ChurnBenchmark.twoProducers | lf | 21.521 [18.193-23.844] | 4.79x | 6.89x |",
            "| ChurnBenchmark.twoProducers | stpe | 4.490 [3.967-5.035] | 1.00x | n/a |");

    /** The leading text cells name the row; each numeric cell is one sample of its column. */
    @Test
    void shouldReadEveryNumericCellUnderItsHeader() {
        List<String[]> samples = BuildCompare.parse(CHURN_TABLE);

        assertThat(samples)
                .extracting(s -> String.join(" / ", s))
                .containsExactly(
                        "ChurnBenchmark.twoProducers lf / Mops/s / 21.521",
                        "ChurnBenchmark.twoProducers lf / x stpe / 4.79",
                        "ChurnBenchmark.twoProducers lf / x stpe-roc / 6.89",
                        "ChurnBenchmark.twoProducers stpe / Mops/s / 4.490",
                        "ChurnBenchmark.twoProducers stpe / x stpe / 1.00");
    }

    /** Text between tables ends one; negative figures (lateness below the floor) count. */
    @Test
    void shouldReadSeveralTablesAndNegativeFigures() {
        List<String[]> samples = BuildCompare.parse(List.of(
                "| peer | p50 |",
                "| --- | --- |",
                "| floor | 63.8 [63.8-63.8] |",
                "",
                "| peer | p50 - floor p50 |",
                "| --- | --- |",
                "| lf | -8.4 [-8.4--8.4] |"));

        assertThat(samples)
                .extracting(s -> String.join(" / ", s))
                .containsExactly("floor / p50 / 63.8", "lf / p50 - floor p50 / -8.4");
    }

    /** Each build's medians over the rounds, and the ratio after / before of the medians. */
    @Test
    void shouldPrintMediansOfEachBuildAndTheirRatio(@TempDir Path dir) throws IOException {
        write(dir, "r1-old-churn.txt", "10.0", "1.00x");
        write(dir, "r2-old-churn.txt", "12.0", "1.00x");
        write(dir, "r3-old-churn.txt", "30.0", "1.00x");
        write(dir, "r1-new-churn.txt", "24.0", "1.00x");
        write(dir, "r2-new-churn.txt", "20.0", "1.00x");
        write(dir, "r3-new-churn.txt", "26.0", "1.00x");
        Files.writeString(dir.resolve("summary.md"), "| not | a run |\n| --- | --- |\n| x | 1 |\n");

        String out = run(dir.toString(), "old", "new");

        assertThat(out)
                .contains("## churn")
                .contains("| B lf | Mops/s | 12.000 [10.000-30.000] | 24.000 [20.000-26.000] | 2.00x |");
    }

    /** A directory without any run is a mistake on the command line, not an empty summary. */
    @Test
    void shouldRejectDirectoryWithoutRuns(@TempDir Path dir) {
        assertThatThrownBy(() -> BuildCompare.main(new String[] {dir.toString()}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No r<round>-<build>-<scenario>.txt files");
    }

    private static void write(Path dir, String name, String rate, String ratio) throws IOException {
        Files.writeString(
                dir.resolve(name),
                "| benchmark | peer | Mops/s median [min-max] | x stpe |\n| --- | --- | --- | --- |\n| B | lf | " + rate
                        + " [" + rate + "-" + rate + "] | " + ratio + " |\n");
    }

    private static String run(String... args) throws IOException {
        PrintStream original = System.out;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            BuildCompare.main(args);
        } finally {
            System.setOut(original);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }
}
