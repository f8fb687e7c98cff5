package io.timedjobs.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Medians, ranges and percentiles, and the formatting every scenario prints them with. */
public final class Stats {

    private Stats() {}

    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted =
                values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    /** The value below which {@code fraction} of the sorted samples lie (nearest rank). */
    public static long percentile(long[] sorted, double fraction) {
        if (sorted.length == 0) {
            return 0L;
        }
        int rank = (int) Math.ceil(fraction * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }

    /** {@code median [min-max]} of the samples, scaled and with the given number of decimals. */
    public static String range(List<Double> values, double scale, int decimals) {
        if (values.isEmpty()) {
            return "n/a";
        }
        String f = "%." + decimals + "f";
        return String.format(
                Locale.ROOT,
                f + " [" + f + "-" + f + "]",
                median(values) / scale,
                min(values) / scale,
                max(values) / scale);
    }

    static String ratio(double value, double base) {
        if (Double.isNaN(value) || Double.isNaN(base) || base == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2fx", value / base);
    }

    static String fixed(double value, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f", value);
    }

    /** The peers in round {@code round}'s order: rotated by one each round, to spread drift. */
    static List<String> rotated(List<String> peers, int round) {
        List<String> order = new ArrayList<>(peers);
        if (!order.isEmpty()) {
            java.util.Collections.rotate(order, -(round % order.size()));
        }
        return order;
    }

    static long[] sorted(long[] values) {
        long[] copy = values.clone();
        Arrays.sort(copy);
        return copy;
    }
}
