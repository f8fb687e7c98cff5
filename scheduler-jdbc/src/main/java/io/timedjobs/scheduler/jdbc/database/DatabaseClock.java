package io.timedjobs.scheduler.jdbc.database;

import io.timedjobs.scheduler.Ticker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.List;
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
 *
 * <p>Between measurements the two clocks drift apart, so a measurement's error grows with its age
 * by {@link #ASSUMED_DRIFT_PPM} parts per million (timed on the {@link Ticker}), and only
 * measurements of the last minute are chosen from: the heartbeat
 * measures again every few seconds rather than every poll, and {@link #error()} and {@link
 * #notBeforeLocal} use the error widened to now, so that no instant is placed early whatever the
 * drift within that bound.
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

    /**
     * How fast the local clock and the database's may drift apart, in parts per million: quartz
     * clocks are specified within tens of ppm, and NTP keeps them within a few; a step beyond
     * this is detected as a stepped clock (see the class comment).
     */
    public static final long ASSUMED_DRIFT_PPM = 50;

    /**
     * The oldest a measurement may be to be chosen for its short round trip: older ones have
     * widened by drift more than a busy round trip costs (a minute at 50 ppm is 3 ms).
     */
    private static final long CANDIDATE_AGE_NANOS = Duration.ofMinutes(1).toNanos();

    /** The measurement in use and when it was taken on the ticker, replaced as a whole; null until the first one. */
    private volatile @Nullable Sample measurement;

    /** The last {@link #RECENT} measurements, a ring; guarded by this. */
    private final Sample[] recent = new Sample[RECENT];

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
        return use(Objects.requireNonNull(
                measureOnce(dialect.clockQuery(), List.of(), null), "the clock query returned no row"));
    }

    /**
     * Runs {@code query}, a statement whose one column is the database's time (an update returning
     * it, such as the heartbeat's), as one measurement: in a transaction of its own, so that the
     * round trip timed is the statement's and not its commit's. Returns whether it returned a row
     * (and so measured); without a row the measurement in use stays. Throws what the database
     * throws.
     */
    public synchronized boolean measure(String query, Object... binds) {
        return measure(query, List.of(binds), null);
    }

    /**
     * As {@link #measure(String, Object...)}, with binds bound through the dialect, and {@code
     * carried} (if not null) reading the row's other columns (see {@link BeatRide}).
     */
    public synchronized boolean measure(String query, List<?> binds, BeatRide.@Nullable Reader carried) {
        Sample sample = measureOnce(query, binds, carried);
        if (sample == null) {
            return false;
        }
        use(sample);
        return true;
    }

    private Measurement use(Sample newest) {
        recent[nextSlot] = newest;
        nextSlot = (nextSlot + 1) % RECENT;
        long now = newest.tickerNanos();
        Sample best = newest;
        for (Sample candidate : recent) {
            if (candidate != null
                    && now - candidate.tickerNanos() <= CANDIDATE_AGE_NANOS
                    && candidate
                                    .measurement()
                                    .error()
                                    .compareTo(best.measurement().error())
                            < 0) {
                best = candidate;
            }
        }
        Duration disagreement =
                newest.measurement().offset().minus(best.measurement().offset()).abs();
        if (disagreement.compareTo(newest.errorAt(now).plus(best.errorAt(now))) > 0) {
            // A clock was stepped: the older measurements describe a clock that is gone.
            Arrays.fill(recent, null);
            recent[0] = newest;
            nextSlot = 1;
            best = newest;
        }
        measurement = best;
        return best.measurement();
    }

    /** A measurement and the ticker's reading half-way through its round trip. */
    private record Sample(Measurement measurement, long tickerNanos) {

        /** The measurement's error widened by the drift the clocks may have had since it was taken. */
        Duration errorAt(long nowNanos) {
            long age = Math.max(0, nowNanos - tickerNanos);
            return measurement.error().plusNanos(age / 1_000_000 * ASSUMED_DRIFT_PPM);
        }
    }

    private @Nullable Sample measureOnce(String query, List<?> binds, BeatRide.@Nullable Reader carried) {
        // Timed on a connection already open, so that opening one does not count as round trip.
        return jdbc.execute((ConnectionCallback<@Nullable Sample>) connection -> {
            // An update runs in a transaction of its own: its commit (a log flush) is not timed.
            boolean switched = !binds.isEmpty() && connection.getAutoCommit();
            if (switched) {
                connection.setAutoCommit(false);
            }
            try {
                Sample sample = timed(connection, query, binds, carried);
                if (switched) {
                    connection.commit();
                }
                return sample;
            } catch (SQLException | RuntimeException e) {
                if (switched) {
                    connection.rollback();
                }
                throw e;
            } finally {
                if (switched) {
                    connection.setAutoCommit(true);
                }
            }
        });
    }

    private @Nullable Sample timed(
            Connection connection, String query, List<?> binds, BeatRide.@Nullable Reader carried) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(query)) {
            dialect.bind(statement, binds);
            long startNanos = ticker.read();
            Instant localStart = localClock.instant();
            Instant databaseTime;
            try (ResultSet result = statement.executeQuery()) {
                if (!result.next()) {
                    return null;
                }
                databaseTime = Objects.requireNonNull(dialect.readInstant(result, 1), "database time");
                if (carried != null) {
                    carried.read(result, databaseTime);
                }
            }
            long roundTripNanos = ticker.read() - startNanos;
            Instant localMiddle = localStart.plusNanos(roundTripNanos / 2);
            Duration error =
                    Duration.ofNanos(roundTripNanos - roundTripNanos / 2).plus(RESOLUTION);
            return new Sample(
                    new Measurement(Duration.between(localMiddle, databaseTime), error, localMiddle),
                    startNanos + roundTripNanos / 2);
        }
    }

    /** Returns the measurement in use, or null before the first. */
    public @Nullable Measurement lastMeasurement() {
        Sample current = measurement;
        return current == null ? null : current.measurement();
    }

    /**
     * Returns how long ago, on the ticker, the measurement in use was taken; null before the first.
     */
    public @Nullable Duration age() {
        Sample current = measurement;
        return current == null ? null : Duration.ofNanos(Math.max(0, ticker.read() - current.tickerNanos()));
    }

    /** Returns database time minus local time; zero before the first measurement. */
    public Duration offset() {
        Sample current = measurement;
        return current == null ? Duration.ZERO : current.measurement().offset();
    }

    /**
     * Returns how far the offset may be off now: half the round trip of its measurement, plus the
     * database's timestamp resolution, plus {@link #ASSUMED_DRIFT_PPM} of the measurement's age;
     * zero before the first measurement.
     */
    public Duration error() {
        Sample current = measurement;
        return current == null ? Duration.ZERO : current.errorAt(ticker.read());
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
        Sample current = measurement;
        return current == null
                ? databaseInstant
                : databaseInstant.minus(current.measurement().offset()).plus(current.errorAt(ticker.read()));
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

    /** Returns the ticker that times this clock's measurements, and the pace of those that read it. */
    public Ticker ticker() {
        return ticker;
    }

    /** Returns the local clock this one is measured against. */
    public Clock localClock() {
        return localClock;
    }
}
