package io.timedjobs.scheduler.spring;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Stateless, any thread: turns the {@link Instant}s and {@link Duration}s of Spring's {@code
 * TaskScheduler} into the engine's nanoseconds, refusing bad arguments with a message that names
 * them.
 */
final class TimeArguments {

    /** Beyond this many seconds (about 285 years) a delay saturates instead of overflowing. */
    private static final long SATURATION_SECONDS = 9_000_000_000L;

    private TimeArguments() {}

    /**
     * Returns the nanoseconds from the clock's now until {@code startTime}: negative if it passed.
     * Saturates beyond about 285 years; the engine caps every delay at about 146 years anyway.
     *
     * @throws NullPointerException if {@code startTime} is null
     */
    static long nanosUntil(Instant startTime, Clock clock) {
        Objects.requireNonNull(startTime, "startTime");
        Instant now = clock.instant();
        long seconds = startTime.getEpochSecond() - now.getEpochSecond();
        long nanos = startTime.getNano() - now.getNano();
        if (seconds > SATURATION_SECONDS) {
            return Long.MAX_VALUE;
        }
        if (seconds < -SATURATION_SECONDS) {
            return Long.MIN_VALUE;
        }
        return seconds * 1_000_000_000L + nanos;
    }

    /**
     * Returns a period or delay in nanoseconds, at least 1, saturated at {@link Long#MAX_VALUE}.
     *
     * @throws IllegalArgumentException if {@code duration} is zero or negative
     */
    static long positiveNanos(Duration duration, String name) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + duration);
        }
        return Math.max(1L, saturatedNanos(duration));
    }

    /** Returns the duration in nanoseconds, saturated at {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE}. */
    static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
