package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The encodings of a task's place are each decoded back, and no two ranges overlap. */
class QueuePositionTest {

    private static final long SEED = Long.getLong("timedjobs.model.seed", 20261123L);

    /** Random positions of every kind, and the edges of each range, decode to what was encoded. */
    @Test
    void shouldDecodeEveryEncodingToItsOwnKindOnly() {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int n = 0; n < 100_000; n++) {
            int heap = random.nextInt(Integer.MAX_VALUE);
            int wheel = edgeOrRandom(random, QueuePosition.MAX_WHEEL_INDEX);
            int batch = random.nextInt(64);
            int run = edgeOrRandom(random, QueuePosition.MAX_RUN_POSITION);
            int staged = edgeOrRandom(random, Integer.MAX_VALUE - 2 - QueuePosition.STAGED_OFFSET);

            assertKind(heap, "heap");
            assertKind(QueuePosition.wheel(wheel), "wheel");
            assertThat(QueuePosition.wheelIndex(QueuePosition.wheel(wheel))).isEqualTo(wheel);
            assertKind(QueuePosition.batch(batch), "batch");
            assertThat(QueuePosition.batchSlot(QueuePosition.batch(batch))).isEqualTo(batch);
            assertKind(QueuePosition.run(run), "run");
            assertThat(QueuePosition.runPosition(QueuePosition.run(run))).isEqualTo(run);
            int s = QueuePosition.staged(staged);
            assertKind(s, "staged");
            assertThat(QueuePosition.stagedPosition(s)).isEqualTo(staged);
        }
        assertKind(QueuePosition.NONE, "none");
        assertThat(QueuePosition.staged(Integer.MAX_VALUE - 1 - QueuePosition.STAGED_OFFSET))
                .as("too deep to encode")
                .isEqualTo(QueuePosition.NONE);
    }

    private static int edgeOrRandom(SplittableRandom random, int max) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> max;
            default -> random.nextInt(max + 1);
        };
    }

    private static void assertKind(int p, String kind) {
        assertThat(new boolean[] {
                    QueuePosition.inHeap(p),
                    QueuePosition.inWheel(p),
                    QueuePosition.inBatch(p),
                    QueuePosition.inRun(p),
                    QueuePosition.isStaged(p),
                    p == QueuePosition.NONE
                })
                .as("kinds of %d, encoded as a %s position", p, kind)
                .containsExactly(
                        kind.equals("heap"),
                        kind.equals("wheel"),
                        kind.equals("batch"),
                        kind.equals("run"),
                        kind.equals("staged"),
                        kind.equals("none"));
    }
}
