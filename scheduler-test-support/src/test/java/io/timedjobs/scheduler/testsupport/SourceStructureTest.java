package io.timedjobs.scheduler.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the structure tests read from a module's sources. */
class SourceStructureTest {

    @TempDir
    Path root;

    /** Two packages that import each other are reported as a cycle, with the imports that join them. */
    @Test
    void shouldFindACycleBetweenPackagesThatImportEachOther() throws IOException {
        write("a/A.java", "package a;\nimport b.B;\nclass A {}\n");
        write("b/B.java", "package b;\nimport static c.C.now;\nclass B {}\n");
        write("c/C.java", "package c;\nimport a.A.Inner;\nclass C {}\n");

        assertThat(SourceStructure.read(root).packageCycles())
                .singleElement()
                .asString()
                .contains(
                        "[a, b, c]",
                        "a -> b (1): A imports b.B",
                        "b -> c (1): B imports c.C.now",
                        "c -> a (1): C imports a.A.Inner");
    }

    /** Imports that run one way, or reach outside the module, make no cycle. */
    @Test
    void shouldFindNoCycleWhenImportsRunOneWay() throws IOException {
        write("a/A.java", "package a;\nimport b.B;\nimport java.util.List;\nclass A {}\n");
        write("b/B.java", "package b;\nimport java.util.*;\n// import a.A;\nclass B { String s = \"import a.A;\"; }\n");

        assertThat(SourceStructure.read(root).packageCycles()).isEmpty();
    }

    /** A constructor's parameters are counted past annotations, type arguments, comments and strings. */
    @Test
    void shouldCountEachConstructorsParameters() throws IOException {
        write("a/Wide.java", """
                package a;
                final class Wide {
                    // Wide(int a, int b, int c, int d)
                    Wide(@Named("x, y") java.util.Map<String, Integer> first, int second, Object... rest) {
                        String text = "Wide(1, 2, 3, 4, 5)";
                    }

                    private Wide() {
                        this(null, 0);
                    }

                    static final class Part {
                        public Part(int one, int two) {}
                    }

                    record Row(int a, int b, int c, int d, int e, int f, int g, int h, int i) {}
                }
                """);

        assertThat(SourceStructure.read(root).constructorParameters()).isEqualTo(Map.of("Wide", 3, "Wide.Part", 2));
    }

    /** A known exception may not grow, a new one may not appear, and one within the limit must leave the list. */
    @Test
    void shouldReportEachBreachOfALimit() {
        assertThat(SourceStructure.breaches(
                        Map.of("Grown", 12, "New", 11, "Shrunk", 9, "Kept", 11, "Small", 3),
                        10,
                        Map.of("Grown", 11, "Shrunk", 13, "Kept", 11, "Gone", 20),
                        "lines"))
                .containsExactlyInAnyOrder(
                        "Grown has 12 lines, over its known ceiling 11: a known exception may not grow",
                        "New has 11 lines, over 10",
                        "Shrunk has 9 lines now, within 10: take it off the known exceptions",
                        "Gone is a known exception but no longer here: take it off the list");
    }

    /** A class's length is its file's line count. */
    @Test
    void shouldMeasureClassesInLines() throws IOException {
        write("a/Three.java", "package a;\n\nclass Three {}\n");
        write("a/package-info.java", "package a;\n");

        assertThat(SourceStructure.read(root).classLines()).isEqualTo(Map.of("Three", 3));
    }

    /** A source root that is not there is refused, naming where it was looked for. */
    @Test
    void shouldRefuseAMissingSourceRoot() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> SourceStructure.read(root.resolve("src/main/java")))
                .withMessageContaining("No source directory at");
    }

    private void write(String path, String text) throws IOException {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
