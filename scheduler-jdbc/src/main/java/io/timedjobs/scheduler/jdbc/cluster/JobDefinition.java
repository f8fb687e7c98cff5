package io.timedjobs.scheduler.jdbc.cluster;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. A clustered job's definition as this instance's code declares it: kind,
 * schedule, zone (cron) and initial delay. The cluster fires one definition of a job at a time, the
 * one whose {@link #key()} the job's row holds (see {@link ClusteredJob}).
 *
 * @param kind {@code cron}, {@code fixed-rate} or {@code fixed-delay}, as the row's {@code kind}
 * @param schedule the cron expression, or the period or delay as an ISO-8601 duration
 * @param timeZone the zone of a cron job; null for the other kinds
 * @param initialDelay the delay before a fixed-rate or fixed-delay job's first fire, to a tenth of a
 *     second (see {@link #of}); zero for cron
 */
record JobDefinition(String kind, String schedule, @Nullable String timeZone, Duration initialDelay) {

    /** The step initial delays are rounded up to. */
    private static final long STEP_MILLIS = 100;

    JobDefinition {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(schedule, "schedule");
        Objects.requireNonNull(initialDelay, "initialDelay");
    }

    /**
     * Returns a definition whose initial delay is the one measured, rounded up to a tenth of a
     * second. Spring hands the scheduler a start time, its clock's now plus the declared delay, so
     * the delay measured back from it falls short of the declared one by the microseconds in
     * between: rounded up, it is the declared one on every instance.
     */
    static JobDefinition of(String kind, String schedule, @Nullable String timeZone, Duration measuredInitialDelay) {
        long millis = Math.max(0L, measuredInitialDelay.toNanos() + 999_999L) / 1_000_000L;
        long rounded = (millis + STEP_MILLIS - 1) / STEP_MILLIS * STEP_MILLIS;
        return new JobDefinition(kind, schedule, timeZone, Duration.ofMillis(rounded));
    }

    /** Returns the definition in words, as stored beside its key and written in logs. */
    String text() {
        StringBuilder text = new StringBuilder(kind).append(' ').append(schedule);
        if (timeZone != null) {
            text.append(" in ").append(timeZone);
        }
        if (!initialDelay.isZero()) {
            text.append(" after an initial delay of ").append(initialDelay);
        }
        return text.toString();
    }

    /** Returns a short, stable digest of {@link #text()}: equal for equal definitions on any instance. */
    String key() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    /**
     * Whether a row written by an instance of schema version 1, which recorded no key, holds this
     * definition: version 1 recorded kind, schedule and zone, not the initial delay.
     */
    boolean matchesVersion1Row(String rowKind, String rowSchedule, @Nullable String rowTimeZone) {
        return kind.equals(rowKind) && schedule.equals(rowSchedule) && Objects.equals(timeZone, rowTimeZone);
    }
}
