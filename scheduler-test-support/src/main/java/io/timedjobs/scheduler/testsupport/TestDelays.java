package io.timedjobs.scheduler.testsupport;

import java.time.Duration;

/**
 * Any test may read these. The waits tests use, in one place: a slow machine scales them all with
 * the system property {@code timedjobs.test.delayScale} (for example {@code
 * -Dtimedjobs.test.delayScale=4}), which the build passes on from {@code test.delay.scale}.
 */
public final class TestDelays {

    private static final double SCALE = Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"));

    /** A delay tests schedule with, long enough to be observably "later", short enough to wait for. */
    public static final Duration SHORT = scaled(Duration.ofMillis(50));

    /** A delay within which nothing should happen, used where absence is asserted. */
    public static final Duration SMALL_WINDOW = scaled(Duration.ofMillis(200));

    /** The longest any test waits for an event that must happen. */
    public static final Duration LONG = scaled(Duration.ofSeconds(20));

    private TestDelays() {}

    /**
     * Returns a wait for an event that must happen, scaled to the machine: for the few waits that
     * the constants above do not cover (a child JVM's start, a lease's expiry).
     */
    public static Duration scaled(Duration wait) {
        return Duration.ofNanos(Math.round(wait.toNanos() * SCALE));
    }
}
