package io.timedjobs.benchmarks.startup;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Stateless. Copies the child applications' classes ({@code startup.apps}) from wherever this
 * class was loaded (the benchmarks jar, or the module's classes) into a fresh directory, so that a
 * child's class path holds them and none of the jar's other contents. The directory is removed at
 * exit.
 */
final class AppClasses {

    static final String PACKAGE = "io/timedjobs/benchmarks/startup/apps/";

    private AppClasses() {}

    static Path copy() throws IOException, URISyntaxException {
        Path target = Files.createTempDirectory("startup-apps");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(target)));
        Path source = Path.of(AppClasses.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        int copied = 0;
        if (Files.isDirectory(source)) {
            try (Stream<Path> files = Files.list(source.resolve(PACKAGE))) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    write(target, PACKAGE + file.getFileName(), Files.newInputStream(file));
                    copied++;
                }
            }
        } else {
            try (JarFile jar = new JarFile(source.toFile())) {
                for (JarEntry entry : jar.stream()
                        .filter(e ->
                                e.getName().startsWith(PACKAGE) && e.getName().endsWith(".class"))
                        .toList()) {
                    write(target, entry.getName(), jar.getInputStream(entry));
                    copied++;
                }
            }
        }
        if (copied == 0) {
            throw new IOException("no classes of " + PACKAGE + " in " + source);
        }
        return target;
    }

    private static void write(Path target, String name, InputStream in) throws IOException {
        Path file = target.resolve(name);
        Files.createDirectories(file.getParent());
        try (in) {
            Files.copy(in, file);
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> all = Files.walk(directory)) {
            for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
