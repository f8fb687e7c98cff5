package io.timedjobs.scheduler.spring;

import java.time.Duration;

/**
 * The waits tests use, in one place. A slow machine scales them with the system property {@code
 * timedjobs.test.delayScale} (for example {@code -Dtimedjobs.test.delayScale=4}).
 */
public final class TestDelays {

    private static final double SCALE = Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"));

    /** The longest any test waits for an event that must happen. */
    public static final Duration LONG = scaled(20_000);

    private TestDelays() {}

    private static Duration scaled(long millis) {
        return Duration.ofMillis(Math.round(millis * SCALE));
    }
}
