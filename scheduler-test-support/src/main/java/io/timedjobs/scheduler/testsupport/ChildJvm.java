package io.timedjobs.scheduler.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * For tests, stateless: runs a test's main class in a JVM of its own, on this JVM's java and class
 * path, for what one JVM cannot show (an instance killed with SIGKILL, another default time zone).
 */
public final class ChildJvm {

    private ChildJvm() {}

    /**
     * Returns a builder of a JVM that runs {@code mainClass} with {@code jvmOptions} (for example
     * {@code -Duser.timezone=UTC}) and {@code args}, its error stream merged into its output.
     */
    public static ProcessBuilder builder(Class<?> mainClass, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }

    /**
     * Reads the child's output until a line that starts with {@code prefix}, and returns it; null if
     * the output ends first (the child exited). Blocks while the child says nothing.
     */
    public static @Nullable String readUntil(Process child, String prefix) throws IOException {
        // Not closed: the child may write more, and closing its pipe would fail its writes.
        BufferedReader output =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line;
        do {
            line = output.readLine();
        } while (line != null && !line.startsWith(prefix));
        return line;
    }

    /**
     * Kills the child at once (SIGKILL on Linux: no shutdown hook runs) and waits for it to exit, at
     * most {@code wait} scaled by {@link TestDelays#scaled}; returns whether it exited.
     */
    public static boolean kill(Process child, Duration wait) throws InterruptedException {
        child.destroyForcibly();
        return child.waitFor(TestDelays.scaled(wait).toNanos(), TimeUnit.NANOSECONDS);
    }
}
