package io.timedjobs.scheduler.jdbc.database;

import io.timedjobs.scheduler.Ticker;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcOperations;

/**
 * Not API: used by the auto-configuration, the clustered jobs and durable tasks. Thread-safe:
 * this instance's view of the database's clock. {@link #measure()} runs on the poll
 * thread; every other method may be called from any thread and reads the latest measurement.
 *
 * <p>Due checks happen in SQL, on the database's clock; this class only tells the in-memory engine
 * at which local instant a database instant falls, so that a fire starts on time here even when
 * this machine's clock is off. The offset is measured like NTP's: the local time half-way through
 * the round trip is taken to match the database time read, so the error of the offset is at most
 * half the round trip. As NTP does, the offset in use is that of the recent measurement with the
 * shortest round trip (a busy machine or database makes some round trips long), unless the newest
 * one disagrees with it beyond both their errors: then a clock was stepped, and the newest wins.
 */
public final class DatabaseClock {

    private final JdbcOperations jdbc;
    private final JdbcDialect dialect;
    private final Clock localClock;
    private final Ticker ticker;

    /**
     * The resolution of the database's timestamps: the time it reports may be up to this much
     * behind its clock, so this much is added to each measurement's error.
     */
    private static final Duration RESOLUTION = Duration.ofNanos(1_000);

    /** How many recent measurements the offset in use is chosen from. */
    private static final int RECENT = 8;

    /** The measurement in use, replaced as a whole; null until the first one. */
    private volatile @Nullable Measurement measurement;

    /** The last {@link #RECENT} measurements, a ring; guarded by this. */
    private final Measurement[] recent = new Measurement[RECENT];

    /** Where the next measurement goes in {@link #recent}; guarded by this. */
    private int nextSlot;

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
     * Reads the database's time once and updates the offset; returns the measurement now in use.
     * Throws what the database throws; the previous measurement stays in use meanwhile.
     */
    public synchronized Measurement measure() {
        Measurement newest = measureOnce();
        recent[nextSlot] = newest;
        nextSlot = (nextSlot + 1) % RECENT;
        Measurement best = newest;
        for (Measurement candidate : recent) {
            if (candidate != null && candidate.error().compareTo(best.error()) < 0) {
                best = candidate;
            }
        }
        Duration disagreement = newest.offset().minus(best.offset()).abs();
        if (disagreement.compareTo(newest.error().plus(best.error())) > 0) {
            // A clock was stepped: the older measurements describe a clock that is gone.
            Arrays.fill(recent, null);
            recent[0] = newest;
            nextSlot = 1;
            best = newest;
        }
        measurement = best;
        return best;
    }

    private Measurement measureOnce() {
        // Timed on a connection already open, so that opening one does not count as round trip.
        Measurement next = Objects.requireNonNull(jdbc.execute((ConnectionCallback<Measurement>) connection -> {
            try (PreparedStatement statement = connection.prepareStatement(dialect.clockQuery())) {
                long startNanos = ticker.read();
                Instant localStart = localClock.instant();
                Instant databaseTime;
                try (ResultSet result = statement.executeQuery()) {
                    result.next();
                    databaseTime = Objects.requireNonNull(dialect.readInstant(result, 1), "database time");
                }
                long roundTripNanos = ticker.read() - startNanos;
                Instant localMiddle = localStart.plusNanos(roundTripNanos / 2);
                Duration error =
                        Duration.ofNanos(roundTripNanos - roundTripNanos / 2).plus(RESOLUTION);
                return new Measurement(Duration.between(localMiddle, databaseTime), error, localMiddle);
            }
        }));
        return next;
    }

    /** Returns the measurement in use, or null before the first. */
    public @Nullable Measurement lastMeasurement() {
        return measurement;
    }

    /** Returns database time minus local time; zero before the first measurement. */
    public Duration offset() {
        Measurement current = measurement;
        return current == null ? Duration.ZERO : current.offset();
    }

    /**
     * Returns how far the offset may be off (half the round trip of its measurement, plus the
     * database's timestamp resolution); zero before the first measurement.
     */
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
     * Returns the earliest local instant at which a database instant has certainly passed: where
     * {@link #toLocal} estimates it to fall, plus the most the estimate can be off by. Fires and
     * durable tasks start here, so that none starts before its instant on the database's clock,
     * whichever way the offset's estimate errs.
     */
    public Instant notBeforeLocal(Instant databaseInstant) {
        Measurement current = measurement;
        return current == null
                ? databaseInstant
                : databaseInstant.minus(current.offset()).plus(current.error());
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
