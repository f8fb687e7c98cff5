package io.timedjobs.scheduler;

import org.jetbrains.lincheck.datastructures.Operation;
import org.junit.jupiter.api.Test;

/**
 * The checks of {@link StripesScenario} with producers that also stage bursts, each long
 * enough to fill a stripe's chunk and start the next: a new chunk's CAS then races with drains,
 * closes and the claims of other producers on the full one.
 */
public class HandoffChunksStress extends StripesScenario {

    /** Tasks a burst stages: one more than a stripe's first chunk holds. */
    private static final int BURST = HandoffStripes.Chunk.FIRST + 1;

    /** A producer offers tasks in a burst, across the end of its stripe's chunk. */
    @Operation
    public void addBurst() {
        stage(BURST);
    }

    /** Interleavings of small scenarios, fewer than for single adds: each burst is long to explore. */
    @Test
    void shouldKeepEveryTaskAcrossChunksUnderModelChecking() {
        StressBudget.modelChecking(5, 100)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(1)
                .actorsAfter(1)
                .check(HandoffChunksStress.class);
    }

    /** The same scenarios on real threads, racing on this machine's cores. */
    @Test
    void shouldKeepEveryTaskAcrossChunksUnderStress() {
        StressBudget.stress(20, 2_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1)
                .check(HandoffChunksStress.class);
    }
}
