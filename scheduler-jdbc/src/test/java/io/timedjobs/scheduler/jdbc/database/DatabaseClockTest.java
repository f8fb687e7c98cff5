package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
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
