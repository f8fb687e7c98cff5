package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Recurring schedules: their stored form, their fires, and bad input. */
class DurableScheduleTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** A schedule reads back from its stored text as an equal schedule. */
    @Test
    void shouldReadBackItsStoredForm() {
        DurableSchedule cron = DurableSchedule.cron("0 */5 * * * *", ZoneId.of("Europe/Paris"));
        DurableSchedule every = DurableSchedule.every(Duration.ofSeconds(90));

        assertThat(cron.toString()).isEqualTo("cron:0 */5 * * * *@Europe/Paris");
        assertThat(DurableSchedule.parse(cron.toString())).isEqualTo(cron);
        assertThat(DurableSchedule.parse(every.toString())).isEqualTo(every);
    }

    /** A fixed period follows the previous fire and skips the fires missed while nothing ran. */
    @Test
    void shouldFollowThePreviousFireAndSkipMissedOnes() {
        DurableSchedule every = DurableSchedule.every(Duration.ofSeconds(10));

        assertThat(every.next(T0, T0)).isEqualTo(T0.plusSeconds(10));
        assertThat(every.next(T0, T0.plusSeconds(35))).isEqualTo(T0.plusSeconds(40));
        assertThat(every.first(T0)).isEqualTo(T0.plusSeconds(10));
    }

    /** A cron schedule fires at its next match in its zone. */
    @Test
    void shouldFireCronAtItsNextMatchInItsZone() {
        DurableSchedule daily = DurableSchedule.cron("0 0 9 * * *", ZoneId.of("Europe/Paris"));

        assertThat(daily.next(T0, T0)).isEqualTo(Instant.parse("2026-01-01T08:00:00Z"));
    }

    /** Bad schedules fail with a message that shows the input. */
    @Test
    void shouldRejectBadSchedules() {
        assertThatThrownBy(() -> DurableSchedule.every(Duration.ZERO)).hasMessageContaining("positive");
        assertThatThrownBy(() -> DurableSchedule.cron("not cron", ZoneId.of("UTC")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DurableSchedule.parse("hourly")).hasMessageContaining("'hourly'");
        assertThatThrownBy(() -> DurableSchedule.parse("cron:0 * * * * *@Mars/Base"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
