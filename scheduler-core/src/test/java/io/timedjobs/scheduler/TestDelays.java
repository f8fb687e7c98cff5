package io.timedjobs.scheduler;

import java.time.Duration;

/**
 * The few waits tests use, in one place. A slow machine scales them all with the system property
 * {@code timedjobs.test.delayScale} (for example {@code -Dtimedjobs.test.delayScale=4}).
 */
final class TestDelays {

    private static final double SCALE = Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"));

    /** A delay tests schedule with, long enough to be observably "later", short enough to wait for. */
    static final Duration SHORT = scaled(50);

    /** A delay within which nothing should happen, used where absence is asserted. */
    static final Duration SMALL_WINDOW = scaled(200);

    /** The longest any test waits for an event that must happen. */
    static final Duration LONG = scaled(20_000);

    private TestDelays() {}

    private static Duration scaled(long millis) {
        return Duration.ofMillis(Math.round(millis * SCALE));
    }
}
