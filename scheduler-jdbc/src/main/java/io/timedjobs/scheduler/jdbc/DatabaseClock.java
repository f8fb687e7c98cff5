package io.timedjobs.scheduler.jdbc;

import io.timedjobs.scheduler.Ticker;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Thread-safe: this instance's view of the database's clock. {@link #measure()} runs on the poll
 * thread; every other method may be called from any thread and reads the latest measurement.
 *
 * <p>Due checks happen in SQL, on the database's clock; this class only tells the in-memory engine
 * at which local instant a database instant falls, so that a fire starts on time here even when
 * this machine's clock is off. The offset is measured like NTP's: the local time half-way through
 * the round trip is taken to match the database time read, so the error of the offset is at most
 * half the round trip.
 */
public final class DatabaseClock {

    private final JdbcOperations jdbc;
    private final JdbcDialect dialect;
    private final Clock localClock;
    private final Ticker ticker;

    /** Latest measurement, replaced as a whole; null until the first one. */
    private volatile @Nullable Measurement measurement;

    /**
     * Creates a clock that compares the database's time with {@code localClock}, the clock the
     * engine fires by; {@code ticker} times the round trip.
     */
    public DatabaseClock(JdbcOperations jdbc, JdbcDialect dialect, Clock localClock, Ticker ticker) {
        this.jdbc = Objects.requireNonNull(jdbc, "jdbc");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.localClock = Objects.requireNonNull(localClock, "localClock");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /** One measurement: database time minus local time, and the most it can be off by. */
    public record Measurement(Duration offset, Duration error, Instant measuredAt) {}

    /**
     * Reads the database's time once and updates the offset. Throws what the database throws; the
     * previous measurement stays in use meanwhile.
     */
    public Measurement measure() {
        // Timed on a connection already open, so that opening one does not count as round trip.
        Measurement next = Objects.requireNonNull(jdbc.execute((ConnectionCallback<Measurement>) connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT " + dialect.now())) {
                long startNanos = ticker.read();
                Instant localStart = localClock.instant();
                Instant databaseTime;
                try (ResultSet result = statement.executeQuery()) {
                    result.next();
                    databaseTime = result.getObject(1, OffsetDateTime.class).toInstant();
                }
                long roundTripNanos = ticker.read() - startNanos;
                Instant localMiddle = localStart.plusNanos(roundTripNanos / 2);
                return new Measurement(
                        Duration.between(localMiddle, databaseTime), Duration.ofNanos(roundTripNanos / 2), localMiddle);
            }
        }));
        measurement = next;
        return next;
    }

    /** Returns the latest measurement, or null before the first. */
    public @Nullable Measurement lastMeasurement() {
        return measurement;
    }

    /** Returns database time minus local time; zero before the first measurement. */
    public Duration offset() {
        Measurement current = measurement;
        return current == null ? Duration.ZERO : current.offset();
    }

    /** Returns how far the offset may be off (half the round trip of its measurement); zero before. */
    public Duration error() {
        Measurement current = measurement;
        return current == null ? Duration.ZERO : current.error();
    }

    /** Returns the database's time now, as estimated from the local clock and the offset. */
    public Instant now() {
        return localClock.instant().plus(offset());
    }

    /** Returns the local instant (on the engine's clock) at which a database instant falls. */
    public Instant toLocal(Instant databaseInstant) {
        return databaseInstant.minus(offset());
    }

    /**
     * Returns the delay, in nanoseconds on this instance's {@link Ticker}, until a database instant
     * falls here (negative if it has passed), for scheduling on the engine: {@code
     * ticker.read() + nanosUntil(instant)} is the engine's due time.
     */
    public long nanosUntil(Instant databaseInstant) {
        Duration delay = Duration.between(localClock.instant(), toLocal(databaseInstant));
        try {
            return delay.toNanos();
        } catch (ArithmeticException overflow) {
            return delay.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** Returns the database instant at which a local instant falls. */
    public Instant toDatabase(Instant localInstant) {
        return localInstant.plus(offset());
    }

    /** Returns a clock that reads the estimated database time, in the given zone. */
    public Clock asClock(ZoneId zone) {
        Objects.requireNonNull(zone, "zone");
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return zone;
            }

            @Override
            public Clock withZone(ZoneId other) {
                return asClock(other);
            }

            @Override
            public Instant instant() {
                return now();
            }
        };
    }

    /** Returns the local clock this one is measured against. */
    public Clock localClock() {
        return localClock;
    }
}
