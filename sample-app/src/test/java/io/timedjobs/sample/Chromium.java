package io.timedjobs.sample;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One thread at a time: headless Chromium, run once per page load (or driven through the {@link
 * DevTools} protocol to measure a page), as Debian's {@code chromium}
 * package installs it. Each load uses a profile of its own and ends within a bounded time.
 */
final class Chromium {

    private static final List<String> NAMES = List.of("chromium", "chromium-browser", "google-chrome");

    /** Scripts run this long, in the browser's virtual time, before the page is read. */
    private static final int SCRIPT_MILLIS = 1_500;

    private final Path executable;

    private Chromium(Path executable) {
        this.executable = executable;
    }

    /** Returns the browser on the PATH, if one is installed. */
    static Optional<Chromium> find() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String name : NAMES) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(new Chromium(candidate));
                }
            }
        }
        return Optional.empty();
    }

    /** Returns the DOM of the page once its scripts ran. */
    String dumpDom(String url, Duration timeout) throws IOException, InterruptedException {
        Path out = Files.createTempFile("timed-jobs-dom", ".html");
        try {
            run(List.of("--dump-dom", url), out, timeout);
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Saves a PNG of the page once its scripts ran. */
    void screenshot(String url, Path png, Duration timeout) throws IOException, InterruptedException {
        screenshot(url, png, 1400, 900, timeout);
    }

    /** Saves a PNG of the page, in a window of this size, once its scripts ran. */
    void screenshot(String url, Path png, int width, int height, Duration timeout)
            throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        run(
                List.of(
                        "--window-size=" + width + "," + height,
                        "--hide-scrollbars",
                        "--screenshot=" + png.toAbsolutePath(),
                        url),
                null,
                timeout);
    }

    /**
     * Opens the page in a viewport of this size, waits until {@code ready} (a script) is true, and
     * returns what {@code probe} (a script whose value is a string without quotes or backslashes)
     * gives, through the DevTools protocol.
     */
    String probe(String url, int width, int height, String ready, String probe, Duration timeout)
            throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("timed-jobs-chromium");
        List<String> command = List.of(
                executable.toString(),
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--user-data-dir=" + profile,
                "--remote-debugging-port=0",
                "--window-size=" + width + "," + height,
                "about:blank");
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try (DevTools devTools = DevTools.attach(profile, timeout)) {
            devTools.call(
                    "Emulation.setDeviceMetricsOverride",
                    "{\"width\":" + width + ",\"height\":" + height + ",\"deviceScaleFactor\":1,\"mobile\":false}");
            devTools.call("Page.navigate", "{\"url\":\"" + url + "\"}");
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!devTools.evaluate(ready).equals("true")) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The page was not ready within " + timeout + ": " + ready);
                }
                devTools.pause();
            }
            return devTools.evaluate(probe);
        } finally {
            process.destroyForcibly();
            process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            deleteQuietly(profile);
        }
    }

    private void run(List<String> args, Path stdout, Duration timeout) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("timed-jobs-chromium");
        List<String> command = new ArrayList<>(List.of(
                executable.toString(),
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile,
                "--virtual-time-budget=" + SCRIPT_MILLIS));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.redirectOutput(
                stdout == null ? ProcessBuilder.Redirect.DISCARD : ProcessBuilder.Redirect.to(stdout.toFile()));
        Process process = builder.start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("Chromium did not finish within " + timeout + ": " + command);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("Chromium exited with " + process.exitValue() + ": " + command);
            }
        } finally {
            process.destroyForcibly();
            deleteQuietly(profile);
        }
    }

    private static void deleteQuietly(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }
}
