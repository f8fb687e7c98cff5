package io.timedjobs.scheduler.internal;

import java.time.Duration;

/**
 * The few waits the engine's internal tests use, scaled like the public tests' ones by the system
 * property {@code timedjobs.test.delayScale}.
 */
final class TestDelays {

    private static final double SCALE = Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"));

    /** A delay within which nothing should happen, used where absence is asserted. */
    static final Duration SMALL_WINDOW = scaled(200);

    /** The longest any test waits for an event that must happen. */
    static final Duration LONG = scaled(20_000);

    private TestDelays() {}

    private static Duration scaled(long millis) {
        return Duration.ofMillis(Math.round(millis * SCALE));
    }
}
