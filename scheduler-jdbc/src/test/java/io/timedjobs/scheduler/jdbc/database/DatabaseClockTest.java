package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

class DatabaseClockTest {

    /** A local clock 2 s behind reads an offset of +2 s, within the measurement's error plus slack. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldMeasureTheOffsetOfASkewedLocalClock(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(-2));
        DatabaseClock clock = new DatabaseClock(
                new JdbcTemplate(dataSource), JdbcDialect.detect(dataSource), behind, Ticker.system());
        assertThat(clock.lastMeasurement()).isNull();
        assertThat(clock.offset()).isZero();

        DatabaseClock.Measurement measurement = clock.measure();
        DatabaseClock.Measurement first = measurement;

        Duration slack = measurement.error().plusMillis(100);
        assertThat(measurement.offset())
                .isBetween(
                        Duration.ofSeconds(2).minus(slack),
                        Duration.ofSeconds(2).plus(slack));
        assertThat(clock.lastMeasurement()).isEqualTo(first);
        Instant databaseInstant = Instant.parse("2030-01-01T00:00:00Z");
        assertThat(clock.toDatabase(clock.toLocal(databaseInstant))).isEqualTo(databaseInstant);
        assertThat(clock.toLocal(databaseInstant)).isEqualTo(databaseInstant.minus(measurement.offset()));
        // Fewer measurements than the ring holds: the best so far never leaves it.
        for (int i = 0; i < 5; i++) {
            DatabaseClock.Measurement again = clock.measure();
            assertThat(again.error())
                    .as("the shortest recent round trip is kept")
                    .isLessThanOrEqualTo(measurement.error());
            measurement = again;
        }
        assertThat(clock.lastMeasurement()).isEqualTo(measurement);
        long inAMinute = clock.nanosUntil(clock.now().plusSeconds(60));
        assertThat(inAMinute)
                .isBetween(
                        Duration.ofSeconds(59).toNanos(), Duration.ofSeconds(60).toNanos());
        assertThat(Duration.between(Instant.now(), clock.asClock(ZoneOffset.UTC).instant())
                        .abs())
                .isLessThan(slack.plusMillis(200));
    }

    /**
     * An offset estimate off by its whole error (the database read its time at the very end of the
     * round trip, not half-way) still never places a database instant early on the local clock.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldNeverPlaceAnInstantEarlyWhenTheEstimateIsOffByItsError(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        Duration head = Duration.ofMillis(200);
        // The round trip's start is read 200 ms before it really began, on the clock and the
        // ticker alike: the database's read comes at the end of the round trip, not half-way.
        Clock system = Clock.systemUTC();
        AtomicBoolean clockStart = new AtomicBoolean(true);
        Clock startsEarly = new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                Instant now = system.instant();
                return clockStart.getAndSet(false) ? now.minus(head) : now;
            }
        };
        AtomicBoolean tickerStart = new AtomicBoolean(true);
        Ticker startsEarlyTicker = () -> System.nanoTime() - (tickerStart.getAndSet(false) ? head.toNanos() : 0L);
        DatabaseClock clock = new DatabaseClock(
                new JdbcTemplate(dataSource), JdbcDialect.detect(dataSource), startsEarly, startsEarlyTicker);
        DatabaseClock.Measurement measurement = clock.measure();
        // The true offset is about zero (both clocks are this machine's); the estimate is ahead by
        // nearly its error, which covers the whole round trip read.
        assertThat(measurement.offset()).isPositive();
        assertThat(measurement.error()).isGreaterThanOrEqualTo(head.dividedBy(2));
        Instant databaseInstant = Instant.parse("2030-01-01T00:00:00Z");
        Duration trueOffset = Duration.ZERO;
        Instant trulyFallsAt = databaseInstant.minus(trueOffset);
        assertThat(clock.toLocal(databaseInstant))
                .as("the estimate alone is early")
                .isBefore(trulyFallsAt);
        assertThat(clock.notBeforeLocal(databaseInstant))
                .as("never early")
                .isAfterOrEqualTo(trulyFallsAt)
                .isBeforeOrEqualTo(trulyFallsAt.plus(measurement.error().multipliedBy(2)));
    }

    /** When the local clock is stepped, the offset follows at the next measurement. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldFollowASteppedLocalClock(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        SteppedClock local = new SteppedClock();
        DatabaseClock clock =
                new DatabaseClock(new JdbcTemplate(dataSource), JdbcDialect.detect(dataSource), local, Ticker.system());
        for (int i = 0; i < 3; i++) {
            clock.measure();
        }
        assertThat(clock.offset().abs()).isLessThan(Duration.ofSeconds(1));

        local.step = Duration.ofSeconds(-10);
        clock.measure();

        assertThat(clock.offset()).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(11));
    }

    /** The system clock, plus a step a test sets. */
    private static final class SteppedClock extends Clock {
        volatile Duration step = Duration.ZERO;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(step);
        }
    }
}
