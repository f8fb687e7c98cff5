package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.SourceStructure;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The auto-configuration's main sources keep the rules of structure that CONTRIBUTING states. */
class StructureTest {

    private static final SourceStructure SOURCES = SourceStructure.read(Path.of("src/main/java"));

    /** No package of the module imports another that imports it back. */
    @Test
    void shouldHaveNoPackageCycle() {
        assertThat(SOURCES.packageCycles()).isEmpty();
    }

    /** No class is longer than the limit. */
    @Test
    void shouldKeepEveryClassWithinTheLengthLimit() {
        assertThat(SourceStructure.breaches(SOURCES.classLines(), SourceStructure.MAX_CLASS_LINES, Map.of(), "lines"))
                .as("classes over %d lines", SourceStructure.MAX_CLASS_LINES)
                .isEmpty();
    }
}
