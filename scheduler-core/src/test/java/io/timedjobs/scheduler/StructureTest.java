package io.timedjobs.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.SourceStructure;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The engine's main sources keep the rules of structure that CONTRIBUTING states. */
class StructureTest {

    private static final SourceStructure SOURCES = SourceStructure.read(Path.of("src/main/java"));

    /**
     * Stays whole, however long: the queue owns the lock, the leader and the whole of take(), as
     * the JDK's DelayQueue does, so that the leader-follower protocol and its no-lost-wake-up
     * argument read in one place; what it drives lives in small classes beside it.
     */
    private static final String WHOLE_ON_PURPOSE = "LeaderFollowerDelayQueue";

    /** No package of the engine imports another that imports it back. */
    @Test
    void shouldHaveNoPackageCycle() {
        assertThat(SOURCES.packageCycles()).isEmpty();
    }

    /** No class but the delay queue is longer than the limit. */
    @Test
    void shouldKeepEveryClassWithinTheLengthLimit() {
        Map<String, Integer> lines = new TreeMap<>(SOURCES.classLines());
        assertThat(lines).containsKey(WHOLE_ON_PURPOSE);
        lines.remove(WHOLE_ON_PURPOSE);
        assertThat(SourceStructure.breaches(lines, SourceStructure.MAX_CLASS_LINES, Map.of(), "lines"))
                .as(
                        "classes over %d lines (%s stays whole on purpose)",
                        SourceStructure.MAX_CLASS_LINES, WHOLE_ON_PURPOSE)
                .isEmpty();
    }
}
