package io.timedjobs.benchmarks;

/**
 * Scenario sizes, full or smoke. {@code -Dbench.smoke=true} shrinks every scenario to about a
 * hundredth so that a build can run all of them in well under a minute; each size can also be set on
 * its own ({@code -Dbench.prefill=...}).
 */
public final class Sizes {

    private Sizes() {}

    public static boolean smoke() {
        return Boolean.getBoolean("bench.smoke");
    }

    public static int size(String key, int full) {
        return Integer.getInteger("bench." + key, smoke() ? Math.max(1, full / 100) : full);
    }

    public static long millis(String key, long full) {
        return Long.getLong("bench." + key + "Ms", smoke() ? Math.max(1L, full / 100) : full);
    }
}
