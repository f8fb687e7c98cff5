package io.timedjobs.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when told to, for tests that must not depend on real time.
 *
 * <p>A scheduler built with a manual ticker never waits on real time: its leader sleeps until the
 * ticker is {@linkplain #advance(Duration) advanced} and then runs every task that came due. The
 * ticker also offers a matching wall {@linkplain #clock() clock}, which the scheduler uses unless
 * the builder is given another.
 *
 * <p>This class is thread-safe.
 */
public final class ManualTicker implements Ticker {

    private final AtomicLong nanos;
    private final long initial;
    private final Instant origin;
    private final CopyOnWriteArrayList<Runnable> advanceListeners = new CopyOnWriteArrayList<>();

    /** Creates a ticker that reads {@code 0}, whose clock starts at {@code 2026-01-01T00:00:00Z}. */
    public ManualTicker() {
        this(0L, Instant.parse("2026-01-01T00:00:00Z"));
    }

    /**
     * Creates a ticker with the given first reading and clock origin.
     *
     * @param initialNanos the first reading; any value, including ones close to overflow
     * @param origin what the clock reads while the ticker reads {@code initialNanos}
     */
    public ManualTicker(long initialNanos, Instant origin) {
        this.nanos = new AtomicLong(initialNanos);
        this.initial = initialNanos;
        this.origin = Objects.requireNonNull(origin, "origin");
    }

    @Override
    public long read() {
        return nanos.get();
    }

    /**
     * Moves time forward and wakes the schedulers that use this ticker.
     *
     * @param amount how far; must not be negative
     * @return the new reading
     */
    public long advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        return advanceNanos(amount.isNegative() ? -1 : saturatedNanos(amount));
    }

    /**
     * Moves time forward and wakes the schedulers that use this ticker.
     *
     * @param amount how far; must not be negative
     * @param unit the unit of {@code amount}
     * @return the new reading
     */
    public long advance(long amount, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return advanceNanos(amount < 0 ? -1 : unit.toNanos(amount));
    }

    private long advanceNanos(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("A ticker only moves forward; amount must not be negative");
        }
        long now = nanos.addAndGet(delta);
        for (Runnable listener : advanceListeners) {
            listener.run();
        }
        return now;
    }

    /**
     * Returns a wall clock in UTC that moves with this ticker: it reads the origin given at
     * construction plus the time this ticker has advanced since.
     */
    public Clock clock() {
        return new TickerClock(ZoneOffset.UTC);
    }

    /** Registers a callback run after every advance; used by the scheduler to wake its leader. */
    void onAdvance(Runnable listener) {
        advanceListeners.add(listener);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        return "ManualTicker[" + nanos.get() + "ns]";
    }

    private final class TickerClock extends Clock {
        private final ZoneId zone;

        TickerClock(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId newZone) {
            return new TickerClock(newZone);
        }

        @Override
        public Instant instant() {
            return origin.plusNanos(nanos.get() - initial);
        }
    }
}
