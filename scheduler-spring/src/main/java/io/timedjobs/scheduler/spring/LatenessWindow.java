package io.timedjobs.scheduler.spring;

import java.util.Arrays;

/**
 * Not thread-safe: guarded by the monitor of the {@link TrackedJob} that owns it. The lateness of
 * a job's most recent runs, in a ring of fixed size, so a job costs the same memory after a
 * billion runs as after one; percentiles are computed when someone asks, never per run.
 */
final class LatenessWindow {

    /** Runs kept per job: a minute of a once-a-second job, enough for a p99 that means something. */
    static final int SIZE = 128;

    private final long[] nanos = new long[SIZE];

    /** Runs recorded so far; the next one goes to {@code count % SIZE}. */
    private long count;

    void add(long latenessNanos) {
        nanos[(int) (count % SIZE)] = latenessNanos;
        count++;
    }

    /** Returns the kept samples, oldest first. */
    long[] recent() {
        int size = (int) Math.min(count, SIZE);
        long[] out = new long[size];
        int start = (int) ((count - size) % SIZE);
        for (int i = 0; i < size; i++) {
            out[i] = nanos[(start + i) % SIZE];
        }
        return out;
    }

    /**
     * Returns the value at a quantile of the samples (nearest rank), 0 when there are none.
     *
     * @param sorted samples in ascending order
     * @param quantile between 0 and 1
     */
    static long quantile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return 0L;
        }
        int rank = (int) Math.ceil(quantile * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Returns a sorted copy. */
    static long[] sorted(long[] samples) {
        long[] copy = samples.clone();
        Arrays.sort(copy);
        return copy;
    }
}
