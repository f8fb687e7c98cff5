package io.timedjobs.scheduler;

import java.time.Clock;

/**
 * Source of monotonic time in nanoseconds, the clock that decides when a task is due.
 *
 * <p>Only differences between two readings mean anything; a reading may be negative and may wrap
 * around, exactly like {@link System#nanoTime()}. Tests replace it with a {@link ManualTicker} to
 * move time forward deterministically.
 *
 * <p>A ticker that does not {@linkplain #movesWithRealTime() move with real time} says so, and the
 * scheduler then never waits on real time for it: it {@linkplain #register registers} with the
 * ticker, which wakes it at each move, and takes the ticker's {@linkplain #clock() clock} as its
 * default wall clock. The defaults describe a ticker that moves with real time.
 */
@FunctionalInterface
public interface Ticker {

    /** Returns the current reading, in nanoseconds. */
    long read();

    /**
     * Returns whether this ticker moves on its own, with real time, so that a thread may wait for a
     * later reading by sleeping for the difference; default true. A ticker that moves only when
     * told to answers false, and then wakes the schedulers {@linkplain #register registered} with
     * it whenever it moves: {@link ManualTicker} does; a scheduler built on any other ticker that
     * answers false is refused with an {@link IllegalArgumentException}, since its leader would wait
     * for a wake-up that never comes.
     */
    default boolean movesWithRealTime() {
        return true;
    }

    /**
     * Returns a wall clock in UTC that agrees with this ticker; default the system's. A scheduler
     * built on this ticker uses it unless given a clock of its own; the Spring {@code TaskScheduler}
     * uses it only for a ticker that does not {@linkplain #movesWithRealTime() move with real time},
     * and Spring's default-zone system clock otherwise.
     */
    default Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * Called once by each scheduler built on this ticker, before its workers start; the default
     * does nothing. A ticker that does not {@linkplain #movesWithRealTime() move with real time}
     * keeps the scheduler, to wake its leader whenever the ticker moves. Applications do not call
     * it.
     *
     * @param scheduler the scheduler just built
     */
    default void register(LeaderFollowerScheduler scheduler) {}

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
