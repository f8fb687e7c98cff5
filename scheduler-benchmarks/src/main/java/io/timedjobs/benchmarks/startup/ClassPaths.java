package io.timedjobs.benchmarks.startup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Immutable once read, so thread-safe. The class path of each start-up variant, built from the
 * module's resolved dependency tree, which the build writes beside the classes: the tree (verbose,
 * so that an artifact Maven kept elsewhere still names its place) and every artifact's file. A
 * variant's class path is the closure of its roots over that tree, so that a child JVM holds its
 * own variant's jars and no other's.
 */
final class ClassPaths {

    static final String TREE = "/startup/dependency-tree.txt";
    static final String FILES = "/startup/dependency-files.txt";

    /** Per artifact key ({@code group:artifact[:classifier]}): the keys of its own dependencies. */
    private final Map<String, List<String>> children;

    /** Per artifact key: its file. */
    private final Map<String, String> files;

    ClassPaths(List<String> tree, List<String> fileLines) {
        this.children = parseTree(tree);
        this.files = parseFiles(fileLines);
    }

    /** Reads both files from the class path; a clear error when the build did not write them. */
    static ClassPaths load() throws IOException {
        return new ClassPaths(lines(TREE), lines(FILES));
    }

    private static List<String> lines(String resource) throws IOException {
        try (InputStream in = ClassPaths.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException(
                        resource + " is not on the class path: build the module with Maven"
                                + " (its generate-resources phase writes it), e.g. ./mvnw package -pl scheduler-benchmarks -am");
            }
            List<String> lines = new ArrayList<>();
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    lines.add(line);
                }
            }
            return lines;
        }
    }

    /** The files of {@code roots} and everything they depend on, roots first; an unknown root is an error. */
    List<String> closure(List<String> roots) {
        Set<String> seen = new LinkedHashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        for (String root : roots) {
            if (!children.containsKey(root)) {
                throw new IllegalArgumentException(root + " is not in the module's dependency tree (" + TREE + ")");
            }
            todo.add(root);
        }
        while (!todo.isEmpty()) {
            String key = todo.poll();
            if (seen.add(key)) {
                todo.addAll(children.getOrDefault(key, List.of()));
            }
        }
        List<String> paths = new ArrayList<>();
        for (String key : seen) {
            String file = files.get(key);
            if (file == null) {
                throw new IllegalArgumentException(key + " has no file in " + FILES);
            }
            paths.add(file);
        }
        return paths;
    }

    /** The file of one artifact, null when the module has none under that key. */
    String file(String key) {
        return files.get(key);
    }

    /** The key of a coordinate {@code group:artifact:type[:classifier]:version[:scope]}. */
    static String key(String coordinate) {
        String[] parts = coordinate.split(":");
        if (parts.length < 4) {
            throw new IllegalArgumentException("not a Maven coordinate: " + coordinate);
        }
        return parts.length >= 6 ? parts[0] + ":" + parts[1] + ":" + parts[3] : parts[0] + ":" + parts[1];
    }

    private static Map<String, List<String>> parseTree(List<String> tree) {
        Map<String, List<String>> children = new HashMap<>();
        // the full (not omitted) node at each depth of the current branch
        List<String> branch = new ArrayList<>();
        for (String line : tree) {
            int start = 0;
            while (start < line.length() && "|+-\\ ".indexOf(line.charAt(start)) >= 0) {
                start++;
            }
            if (start >= line.length()) {
                continue;
            }
            int depth = start / 3;
            boolean omitted = line.charAt(start) == '(';
            String rest = line.substring(omitted ? start + 1 : start);
            int end = rest.indexOf(' ');
            String coordinate = end < 0 ? rest : rest.substring(0, end);
            if (coordinate.endsWith(")")) {
                coordinate = coordinate.substring(0, coordinate.length() - 1);
            }
            String key = key(coordinate);
            while (branch.size() > depth) {
                branch.remove(branch.size() - 1);
            }
            if (depth > 0 && branch.size() == depth && branch.get(depth - 1) != null) {
                children.get(branch.get(depth - 1)).add(key);
            }
            if (!omitted) {
                children.putIfAbsent(key, new ArrayList<>());
            }
            branch.add(omitted ? null : key);
        }
        return children;
    }

    private static Map<String, String> parseFiles(List<String> lines) {
        Map<String, String> files = new HashMap<>();
        for (String line : lines) {
            String trimmed = line.strip();
            int module = trimmed.indexOf(" -- ");
            if (module >= 0) {
                trimmed = trimmed.substring(0, module);
            }
            int path = trimmed.indexOf(":/");
            if (path < 0) {
                continue; // the header, or an artifact without a file
            }
            files.put(key(trimmed.substring(0, path)), trimmed.substring(path + 1));
        }
        return files;
    }
}
