package io.timedjobs.scheduler.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Test code only: the one decision of catch-up, which missed fires run, on an hourly schedule. */
class CatchUpPolicyTest {

    private static final Instant MIDNIGHT = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant NOW = MIDNIGHT.plus(Duration.ofHours(10)).plusSeconds(30);

    /** Hourly fires: the first one strictly after an instant. */
    private static final UnaryOperator<Instant> HOURLY = after ->
            MIDNIGHT.plus(Duration.ofHours(Duration.between(MIDNIGHT, after).toHours() + 1));

    private static Instant hour(int h) {
        return MIDNIGHT.plus(Duration.ofHours(h));
    }

    /** SKIP runs none of the missed fires, and says that it skips some. */
    @Test
    void shouldRunNoneUnderSkip() {
        CatchUpPolicy.Missed missed = CatchUpPolicy.SKIP.missedFires(hour(0), hour(11), NOW, HOURLY);

        assertThat(missed.run()).isEmpty();
        assertThat(missed.skipsSome()).isTrue();
    }

    /** ONCE runs the latest missed fire within the window only. */
    @Test
    void shouldRunTheLatestMissedFireOnceUnderOnce() {
        CatchUpPolicy once = new CatchUpPolicy(Policy.ONCE, Duration.ofHours(6), 24);

        CatchUpPolicy.Missed missed = once.missedFires(hour(0), hour(11), NOW, HOURLY);

        assertThat(missed.run()).containsExactly(hour(10));
        assertThat(missed.skipsSome()).isTrue();
    }

    /**
     * EACH runs the missed fires within the window, oldest first, at most its maximum (the latest),
     * and skips none when all fit.
     */
    @Test
    void shouldRunTheLatestMissedFiresWithinTheWindowUnderEach() {
        CatchUpPolicy each = new CatchUpPolicy(Policy.EACH, Duration.ofHours(6), 3);

        CatchUpPolicy.Missed bounded = each.missedFires(hour(0), hour(11), NOW, HOURLY);
        CatchUpPolicy.Missed windowed =
                new CatchUpPolicy(Policy.EACH, Duration.ofHours(3), 24).missedFires(hour(0), hour(11), NOW, HOURLY);
        CatchUpPolicy.Missed fitting = each.missedFires(hour(8), hour(11), NOW, HOURLY);

        assertThat(bounded.run()).containsExactly(hour(8), hour(9), hour(10));
        assertThat(bounded.skipsSome()).isTrue();
        assertThat(windowed.run()).containsExactly(hour(8), hour(9), hour(10));
        assertThat(windowed.skipsSome()).isTrue();
        assertThat(fitting.run()).containsExactly(hour(9), hour(10));
        assertThat(fitting.skipsSome()).isFalse();
    }

    /** After the watermark passed the skipped fires, every instance lists the first ones after it. */
    @Test
    void shouldListTheFirstMissedFiresAfterAWatermark() {
        CatchUpPolicy each = new CatchUpPolicy(Policy.EACH, Duration.ofHours(6), 2);

        List<Instant> first = each.firstMissedFires(hour(5), hour(11), NOW, HOURLY);

        assertThat(first).containsExactly(hour(6), hour(7));
    }
}
