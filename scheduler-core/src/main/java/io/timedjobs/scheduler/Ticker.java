package io.timedjobs.scheduler;

/**
 * Source of monotonic time in nanoseconds, the clock that decides when a task is due.
 *
 * <p>Only differences between two readings mean anything; a reading may be negative and may wrap
 * around, exactly like {@link System#nanoTime()}. Tests replace it with a {@link ManualTicker} to
 * move time forward deterministically.
 */
@FunctionalInterface
public interface Ticker {

    /** Returns the current reading, in nanoseconds. */
    long read();

    /** Returns the ticker backed by {@link System#nanoTime()}. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}

enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }
}
