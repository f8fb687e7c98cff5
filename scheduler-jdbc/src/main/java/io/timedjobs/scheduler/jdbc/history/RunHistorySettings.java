package io.timedjobs.scheduler.jdbc.history;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable; any thread. Whether runs are recorded, and how long their records are kept.
 *
 * @param enabled whether each run writes a record; when false nothing is written nor pruned
 * @param retention records older than this (by their start) are pruned
 * @param maxRows at most this many records are kept, the newest; older ones are pruned
 */
public record RunHistorySettings(boolean enabled, Duration retention, long maxRows) {

    /** Default retention: a week. */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);

    /** Default most records kept. */
    public static final long DEFAULT_MAX_ROWS = 100_000;

    public RunHistorySettings {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("The run history's retention must be positive, got " + retention);
        }
        if (maxRows < 1) {
            throw new IllegalArgumentException("The run history keeps at least 1 row (max-rows), got " + maxRows);
        }
    }

    /** Recorded, kept {@link #DEFAULT_RETENTION} and at most {@link #DEFAULT_MAX_ROWS} records. */
    public static RunHistorySettings defaults() {
        return new RunHistorySettings(true, DEFAULT_RETENTION, DEFAULT_MAX_ROWS);
    }

    /** Nothing recorded. */
    public static RunHistorySettings disabled() {
        return new RunHistorySettings(false, DEFAULT_RETENTION, DEFAULT_MAX_ROWS);
    }
}
