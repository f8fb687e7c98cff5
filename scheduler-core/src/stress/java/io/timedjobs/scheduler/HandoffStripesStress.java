package io.timedjobs.scheduler;

import org.junit.jupiter.api.Test;

/**
 * The hand-off stripes under producers that stage one task at a time, cancellers and one lock
 * holder; the checks are those of {@link StripesScenario}.
 */
public class HandoffStripesStress extends StripesScenario {

    /** Every interleaving of small scenarios, up to a bound, switch point by switch point. */
    @Test
    void shouldHandEveryTaskOnExactlyOnceUnderModelChecking() {
        StressBudget.modelChecking(10, 300)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1)
                .check(HandoffStripesStress.class);
    }

    /** The same scenarios on real threads, racing on this machine's cores. */
    @Test
    void shouldHandEveryTaskOnExactlyOnceUnderStress() {
        StressBudget.stress(20, 2_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1)
                .check(HandoffStripesStress.class);
    }
}
