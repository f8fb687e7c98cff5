package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class FixedRateJobTest {

    private static final Instant ANCHOR = Instant.parse("2030-01-01T00:00:00.250Z");
    private static final Duration PERIOD = Duration.ofSeconds(1);

    /** Before the anchor, the anchor; on a grid point, that point; between points, the next one. */
    @Test
    void shouldFindTheFirstGridPointNotBeforeNow() {
        assertThat(FixedRateJob.firstGridPointNotBefore(ANCHOR, PERIOD, ANCHOR.minusSeconds(5)))
                .isEqualTo(ANCHOR);
        assertThat(FixedRateJob.firstGridPointNotBefore(ANCHOR, PERIOD, ANCHOR)).isEqualTo(ANCHOR);
        assertThat(FixedRateJob.firstGridPointNotBefore(ANCHOR, PERIOD, ANCHOR.plusSeconds(3)))
                .isEqualTo(ANCHOR.plusSeconds(3));
        assertThat(FixedRateJob.firstGridPointNotBefore(ANCHOR, PERIOD, ANCHOR.plusMillis(3001)))
                .isEqualTo(ANCHOR.plusSeconds(4));
        assertThat(FixedRateJob.firstGridPointNotBefore(ANCHOR, PERIOD, ANCHOR.plus(Duration.ofDays(365 * 50))))
                .isEqualTo(ANCHOR.plus(Duration.ofDays(365 * 50)));
    }

    /** Before the anchor, none; on a grid point, that point; between points, the previous one. */
    @Test
    void shouldFindTheLastGridPointNotAfterNow() {
        assertThat(FixedRateJob.lastGridPointNotAfter(ANCHOR, PERIOD, ANCHOR.minusMillis(1)))
                .isNull();
        assertThat(FixedRateJob.lastGridPointNotAfter(ANCHOR, PERIOD, ANCHOR)).isEqualTo(ANCHOR);
        assertThat(FixedRateJob.lastGridPointNotAfter(ANCHOR, PERIOD, ANCHOR.plusMillis(5)))
                .isEqualTo(ANCHOR);
        assertThat(FixedRateJob.lastGridPointNotAfter(ANCHOR, PERIOD, ANCHOR.plusSeconds(3)))
                .isEqualTo(ANCHOR.plusSeconds(3));
        assertThat(FixedRateJob.lastGridPointNotAfter(ANCHOR, PERIOD, ANCHOR.plusMillis(3999)))
                .isEqualTo(ANCHOR.plusSeconds(3));
    }
}
