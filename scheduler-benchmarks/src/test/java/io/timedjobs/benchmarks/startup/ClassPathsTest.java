package io.timedjobs.benchmarks.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClassPathsTest {

    private static final List<String> TREE = List.of(
            "io.timedjobs:scheduler-benchmarks:jar:0.1.0-SNAPSHOT",
            "+- org.example:core:jar:1.0:compile",
            "|  \\- org.example:util:jar:1.0:compile",
            "|     \\- org.example:native:jar:linux:1.0:compile",
            "+- org.example:starter:jar:2.0:provided",
            "|  +- (org.example:core:jar:1.0:provided - omitted for duplicate)",
            "|  \\- org.example:extra:jar:2.0:provided",
            "\\- org.example:other:jar:3.0:compile");

    private static final List<String> FILES = List.of(
            "The following files have been resolved:",
            "   org.example:core:jar:1.0:compile:/m2/core-1.0.jar -- module core",
            "   org.example:util:jar:1.0:compile:/m2/util-1.0.jar",
            "   org.example:native:jar:linux:1.0:compile:/m2/native-1.0-linux.jar -- module native (auto)",
            "   org.example:starter:jar:2.0:provided:/m2/starter-2.0.jar",
            "   org.example:extra:jar:2.0:provided:/m2/extra-2.0.jar",
            "   org.example:other:jar:3.0:compile:/m2/other-3.0.jar");

    /** A root's class path follows a dependency Maven kept elsewhere in the tree to its own dependencies. */
    @Test
    void shouldFollowAnOmittedDuplicateToWhereMavenKeptIt() {
        ClassPaths paths = new ClassPaths(TREE, FILES);

        assertThat(paths.closure(List.of("org.example:starter")))
                .containsExactlyInAnyOrder(
                        "/m2/starter-2.0.jar",
                        "/m2/core-1.0.jar",
                        "/m2/extra-2.0.jar",
                        "/m2/util-1.0.jar",
                        "/m2/native-1.0-linux.jar");
    }

    /** A root that is not in the tree is refused by name, not left out in silence. */
    @Test
    void shouldRefuseARootThatIsNotInTheTree() {
        ClassPaths paths = new ClassPaths(TREE, FILES);

        assertThatThrownBy(() -> paths.closure(List.of("org.example:missing")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("org.example:missing");
    }
}
