package io.timedjobs.acceptance;

import static org.awaitility.Awaitility.await;

import io.timedjobs.acceptance.app.AcceptanceApplication;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Test code only; one test thread drives each. The acceptance application running in a JVM of its
 * own, on this JVM's java and class path (or a part of it), its output (stdout and stderr) in a file
 * under {@code target/acceptance-logs}, which the tests read as an operator reads a log. Every
 * instance still alive when the test JVM exits is killed.
 */
final class AppInstance implements AutoCloseable {

    /** Boot's line once the application has started. */
    static final Pattern STARTED = Pattern.compile("Started AcceptanceApplication in");

    private static final Pattern PORT = Pattern.compile("Tomcat started on port\\D*(\\d+)");

    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    private static final AtomicInteger COUNTER = new AtomicInteger();

    /** The logs of this test JVM's instances: those of an earlier run are deleted first. */
    private static final Path LOGS = freshLogDirectory();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly)));
    }

    private final String name;
    private final Path log;
    private final Process process;

    private AppInstance(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /**
     * Starts the application as {@code name} (its log file's name) with {@code args} (Boot's
     * {@code --key=value}), on the test class path.
     */
    static AppInstance start(String name, List<String> args) {
        return start(name, args, entry -> true);
    }

    /** As {@link #start(String, List)}, on the entries of the test class path that {@code classPath} keeps. */
    static AppInstance start(String name, List<String> args, Predicate<String> classPath) {
        String path = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(classPath)
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Small and quick to start: two cores are shared by every instance and the build.
        command.addAll(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k"));
        command.add("-cp");
        command.add(path);
        command.add(AcceptanceApplication.class.getName());
        command.addAll(args);
        Path log = LOGS.resolve(COUNTER.incrementAndGet() + "-" + name + ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            LIVE.add(process);
            return new AppInstance(name, log, process);
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + name, ex);
        }
    }

    private static Path freshLogDirectory() {
        Path directory = Path.of(System.getProperty("acceptance.logs", "target/acceptance-logs"));
        try {
            Files.createDirectories(directory);
            try (var old = Files.newDirectoryStream(directory, "*.log")) {
                for (Path file : old) {
                    Files.delete(file);
                }
            }
            return directory;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    String name() {
        return name;
    }

    Path log() {
        return log;
    }

    /** Returns every line the application has written so far. */
    List<String> lines() {
        try {
            return Files.readAllLines(log, StandardCharsets.UTF_8);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Returns every log entry (Boot's pattern) the application has written so far. */
    List<LogLine> entries() {
        return LogLine.parse(lines());
    }

    /**
     * Waits until a line matches {@code pattern}, at most {@code wait} (scaled to the machine);
     * fails at once, with the log's end, when the application exits first.
     */
    String awaitLine(Pattern pattern, Duration wait) {
        return await().atMost(TestDelays.scaled(wait))
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            Optional<String> line = lines().stream()
                                    .filter(text -> pattern.matcher(text).find())
                                    .findFirst();
                            if (line.isEmpty() && !process.isAlive()) {
                                throw new AssertionError(name + " exited (code " + process.exitValue()
                                        + ") before a line matching '" + pattern + "'; its log ends:\n" + tail());
                            }
                            return line.orElse(null);
                        },
                        line -> line != null);
    }

    /** Waits for Boot's started line (at most 90 s, scaled), and returns this. */
    AppInstance awaitStarted() {
        awaitLine(STARTED, Duration.ofSeconds(90));
        return this;
    }

    /** Returns the HTTP port, from Boot's Tomcat line. */
    int port() {
        for (String line : lines()) {
            Matcher matcher = PORT.matcher(line);
            if (matcher.find()) {
                return Integer.parseInt(matcher.group(1));
            }
        }
        throw new AssertionError(name + " has logged no Tomcat port; its log ends:\n" + tail());
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the application to exit by itself, at most {@code wait} scaled; returns its exit code. */
    int awaitExit(Duration wait) throws InterruptedException {
        if (!process.waitFor(TestDelays.scaled(wait).toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " did not exit within " + wait + "; its log ends:\n" + tail());
        }
        LIVE.remove(process);
        return process.exitValue();
    }

    /** Stops the application gracefully (SIGTERM), waits for it to exit, and returns its exit code. */
    int stop() throws InterruptedException {
        process.destroy();
        return awaitExit(Duration.ofSeconds(60));
    }

    /** Returns the last 40 lines of the log. */
    String tail() {
        List<String> lines = lines();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** Kills the application if it still runs (SIGKILL) and waits for it. */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        LIVE.remove(process);
    }
}
