package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.history.SkippedFires;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The range of fires missed while every instance was down: its true bounds and count, in bounded steps. */
class FatesRangeTest {

    private static final Instant FIRST = Instant.parse("2026-01-01T00:00:00Z");

    /** A range within the stepping bound is stepped through and counted exactly. */
    @Test
    void shouldCountAShortRangeFireByFire() {
        SkippedFires missed = Fates.missed(
                "job", "a", FIRST, FIRST.plusSeconds(10), at -> at == null ? null : at.plusSeconds(1), 1000);

        assertThat(missed.first()).isEqualTo(FIRST);
        assertThat(missed.last()).isEqualTo(FIRST.plusSeconds(9));
        assertThat(missed.fires()).isEqualTo(10);
    }

    /**
     * A range far longer than the stepping bound (a per-second job down for a month) keeps its
     * first fire and its true count, and is found in a bounded number of steps.
     */
    @Test
    void shouldKeepTheWholeRangeAndItsTrueCountPastTheBound() {
        long seconds = 2_592_000;
        AtomicLong steps = new AtomicLong();
        UnaryOperator<@Nullable Instant> everySecond = at -> {
            steps.incrementAndGet();
            return at == null ? null : at.plusSeconds(1);
        };

        SkippedFires missed = Fates.missed("job", "a", FIRST, FIRST.plusSeconds(seconds), everySecond, 1000);

        assertThat(missed.first()).isEqualTo(FIRST);
        assertThat(missed.last()).isEqualTo(FIRST.plusSeconds(seconds - 1));
        assertThat(missed.fires()).isEqualTo(seconds);
        assertThat(steps.get()).isLessThanOrEqualTo(2_010);
    }
}
