package io.timedjobs.scheduler.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.SourceStructure;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The jdbc module's main sources keep the rules of structure that CONTRIBUTING states, but for the
 * known exceptions listed here, each at most as large as it is today.
 */
class StructureTest {

    private static final SourceStructure SOURCES = SourceStructure.read(Path.of("src/main/java"));

    /**
     * Classes over the length limit today, with the most lines each may have: none may grow, and
     * each comes off the list once it is within the limit.
     */
    private static final Map<String, Integer> KNOWN_LONG_CLASSES = new TreeMap<>();

    /**
     * Classes with a constructor over the parameter limit today, with the most parameters each may
     * take: none may take more, and each comes off the list once it is within the limit.
     */
    private static final Map<String, Integer> KNOWN_LONG_CONSTRUCTORS = new TreeMap<>(Map.of());

    /** No package of the module imports another that imports it back. */
    @Test
    void shouldHaveNoPackageCycle() {
        assertThat(SOURCES.packageCycles()).isEmpty();
    }

    /** No class is longer than the limit, and no known exception longer than it is today. */
    @Test
    void shouldKeepEveryClassWithinTheLengthLimit() {
        assertThat(SourceStructure.breaches(
                        SOURCES.classLines(), SourceStructure.MAX_CLASS_LINES, KNOWN_LONG_CLASSES, "lines"))
                .as(
                        "classes over %d lines; known exceptions (lines each may have at most): %s",
                        SourceStructure.MAX_CLASS_LINES, KNOWN_LONG_CLASSES)
                .isEmpty();
    }

    /**
     * No constructor takes more parameters than the limit, and none of a known exception more than
     * it does today.
     */
    @Test
    void shouldKeepEveryConstructorWithinTheParameterLimit() {
        assertThat(SourceStructure.breaches(
                        SOURCES.constructorParameters(),
                        SourceStructure.MAX_CONSTRUCTOR_PARAMETERS,
                        KNOWN_LONG_CONSTRUCTORS,
                        "constructor parameters"))
                .as(
                        "constructors over %d parameters (records aside); known exceptions (parameters each may"
                                + " take at most): %s",
                        SourceStructure.MAX_CONSTRUCTOR_PARAMETERS, KNOWN_LONG_CONSTRUCTORS)
                .isEmpty();
    }
}
