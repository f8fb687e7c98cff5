package io.timedjobs.scheduler.jdbc.database;

import java.time.Duration;

/**
 * Implementations are thread-safe. Waits a while on the calling thread: {@link ClusterInstance}'s
 * start-up watch of a row left under its name waits through it, so that tests can replace the wait
 * with what happens meanwhile (another holder's heartbeat, or nothing).
 */
@FunctionalInterface
public interface Sleeper {

    /** Waits about {@code duration}; an interrupt ends the wait early. */
    void sleep(Duration duration) throws InterruptedException;

    /** Waits on the system's clock. */
    static Sleeper system() {
        return duration -> Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
    }
}
