package io.timedjobs.scheduler.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Test code only: the shape of one module's main sources, read from their text, for the tests that
 * hold each module to the project's rules of structure: no package cycle, no class over a length,
 * no constructor over a number of parameters. Immutable once read; thread-safe.
 *
 * <p>A package depends on another when one of its files imports a type or a static member of the
 * other (fully qualified names written in code are not seen: the code base imports). Only the
 * module's own packages count. A class's length is its file's line count; a constructor's
 * parameters are counted in its declaration (records aside: see {@link #constructorParameters()}).
 */
public final class SourceStructure {

    /** The most lines a main class may have: what a reader holds in one sitting. */
    public static final int MAX_CLASS_LINES = 450;

    /** The most parameters a constructor of {@code scheduler-jdbc} may take. */
    public static final int MAX_CONSTRUCTOR_PARAMETERS = 8;

    private static final Pattern PACKAGE = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;");
    private static final Pattern IMPORT =
            Pattern.compile("(?m)^\\s*import\\s+(?:static\\s+)?([\\w.]+)(?:\\.\\*)?\\s*;");
    private static final Pattern TYPE = Pattern.compile("\\b(class|record|enum|interface)\\s+([A-Z]\\w*)");

    /** Each package of the module, with the files that declare it. */
    private final Map<String, List<Source>> packages;

    private SourceStructure(Map<String, List<Source>> packages) {
        this.packages = packages;
    }

    /** One file: its package, what it imports, its length and its constructors. */
    private record Source(
            String name, String packageName, int lines, List<String> imports, Map<String, Integer> constructors) {}

    /**
     * Reads every {@code .java} file under a module's source root.
     *
     * @param sourceRoot the root, such as {@code src/main/java} of the module under test
     * @throws IllegalArgumentException if it is not a directory or holds no Java file
     */
    public static SourceStructure read(Path sourceRoot) {
        if (!Files.isDirectory(sourceRoot)) {
            throw new IllegalArgumentException(
                    "No source directory at " + sourceRoot.toAbsolutePath() + ": run the test from its module");
        }
        Map<String, List<Source>> packages = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            for (Path file : (Iterable<Path>)
                    files.filter(f -> f.toString().endsWith(".java")).sorted()::iterator) {
                Source source = parse(file);
                packages.computeIfAbsent(source.packageName(), p -> new ArrayList<>())
                        .add(source);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (packages.isEmpty()) {
            throw new IllegalArgumentException("No Java file under " + sourceRoot.toAbsolutePath());
        }
        return new SourceStructure(packages);
    }

    /**
     * Returns each package cycle: the packages that reach one another through imports, each with
     * the imports that join them. Empty when the packages depend one way only.
     */
    public List<String> packageCycles() {
        Map<String, Map<String, Set<String>>> edges = new TreeMap<>();
        for (Map.Entry<String, List<Source>> entry : packages.entrySet()) {
            Map<String, Set<String>> targets = new TreeMap<>();
            for (Source source : entry.getValue()) {
                for (String imported : source.imports()) {
                    String target = packageOf(imported);
                    if (!target.equals(entry.getKey()) && packages.containsKey(target)) {
                        targets.computeIfAbsent(target, t -> new TreeSet<>())
                                .add(source.name() + " imports " + imported);
                    }
                }
            }
            edges.put(entry.getKey(), targets);
        }
        List<String> cycles = new ArrayList<>();
        for (Set<String> component : new Components(edges).strong()) {
            if (component.size() < 2) {
                continue;
            }
            StringBuilder cycle = new StringBuilder("packages " + component + " import one another:");
            for (String from : component) {
                for (Map.Entry<String, Set<String>> edge : edges.get(from).entrySet()) {
                    if (component.contains(edge.getKey())) {
                        cycle.append("\n    ")
                                .append(from)
                                .append(" -> ")
                                .append(edge.getKey())
                                .append(" (")
                                .append(edge.getValue().size())
                                .append("): ")
                                .append(String.join("; ", edge.getValue()));
                    }
                }
            }
            cycles.add(cycle.toString());
        }
        return cycles;
    }

    /** Returns each class's length in lines, by the name of its file; package-info is left out. */
    public Map<String, Integer> classLines() {
        Map<String, Integer> lines = new TreeMap<>();
        for (List<Source> sources : packages.values()) {
            for (Source source : sources) {
                if (!source.name().equals("package-info")) {
                    lines.merge(source.name(), source.lines(), Math::max);
                }
            }
        }
        return lines;
    }

    /**
     * Returns, for each class or enum with a constructor declared in its text, the most parameters
     * any of its constructors takes, by its simple name (a nested type's preceded by its file's name
     * and a dot). Records are left out: a record is a value whose components are its data, not
     * collaborators handed to it.
     */
    public Map<String, Integer> constructorParameters() {
        Map<String, Integer> parameters = new TreeMap<>();
        for (List<Source> sources : packages.values()) {
            for (Source source : sources) {
                source.constructors().forEach((type, count) -> parameters.merge(type, count, Math::max));
            }
        }
        return parameters;
    }

    /**
     * Returns what breaks a limit: each measured value over the limit and not on the known list,
     * each known one over its ceiling, and each known one that no longer needs its place on the list
     * (gone, or within the limit now), so that the list only shrinks.
     *
     * @param measured a value per name, as {@link #classLines()} returns
     * @param limit the most a value may be
     * @param known today's exceptions: a name and the most its value may be
     * @param unit what the values count, for the messages
     */
    public static List<String> breaches(
            Map<String, Integer> measured, int limit, Map<String, Integer> known, String unit) {
        List<String> breaches = new ArrayList<>();
        for (Map.Entry<String, Integer> entry : measured.entrySet()) {
            String name = entry.getKey();
            int value = entry.getValue();
            Integer ceiling = known.get(name);
            if (ceiling == null && value > limit) {
                breaches.add(name + " has " + value + " " + unit + ", over " + limit);
            } else if (ceiling != null && value > ceiling) {
                breaches.add(name + " has " + value + " " + unit + ", over its known ceiling " + ceiling
                        + ": a known exception may not grow");
            } else if (ceiling != null && value <= limit) {
                breaches.add(name + " has " + value + " " + unit + " now, within " + limit
                        + ": take it off the known exceptions");
            }
        }
        for (String name : known.keySet()) {
            if (!measured.containsKey(name)) {
                breaches.add(name + " is a known exception but no longer here: take it off the list");
            }
        }
        return breaches;
    }

    /** The package of a type or static member: its leading names that start in lower case. */
    private static String packageOf(String imported) {
        StringBuilder name = new StringBuilder();
        for (String part : imported.split("\\.")) {
            if (part.isEmpty() || !Character.isLowerCase(part.charAt(0))) {
                break;
            }
            if (name.length() > 0) {
                name.append('.');
            }
            name.append(part);
        }
        return name.toString();
    }

    private static Source parse(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        String code = JavaText.codeOnly(text);
        String fileName = file.getFileName().toString();
        String name = fileName.substring(0, fileName.length() - ".java".length());
        Matcher packageLine = PACKAGE.matcher(code);
        if (!packageLine.find()) {
            throw new IllegalStateException(file + " declares no package");
        }
        List<String> imports = new ArrayList<>();
        Matcher importLine = IMPORT.matcher(code);
        while (importLine.find()) {
            imports.add(importLine.group(1));
        }
        int lines = (int) text.lines().count();
        return new Source(name, packageLine.group(1), lines, List.copyOf(imports), constructors(name, code));
    }

    /**
     * Each type declared in the file with a constructor, with the most parameters one of its
     * constructors takes; a nested type by its file's name, a dot and its own.
     */
    private static Map<String, Integer> constructors(String fileName, String code) {
        Set<String> types = new LinkedHashSet<>();
        Matcher type = TYPE.matcher(code);
        while (type.find()) {
            if (!type.group(1).equals("record")) {
                types.add(type.group(2));
            }
        }
        Map<String, Integer> constructors = new HashMap<>();
        for (String typeName : types) {
            Pattern constructor = Pattern.compile(
                    "(?m)^[ \\t]*(?:(?:public|protected|private)\\s+)?(?:<[^>]*>\\s*)?" + typeName + "\\s*\\(");
            Matcher found = constructor.matcher(code);
            while (found.find()) {
                String key = typeName.equals(fileName) ? typeName : fileName + "." + typeName;
                constructors.merge(key, JavaText.countParameters(code, found.end()), Math::max);
            }
        }
        return constructors;
    }

    /** Tarjan's strongly connected components of the package graph; each call walks it anew. */
    private static final class Components {
        private final Map<String, Map<String, Set<String>>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> lowest = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new LinkedHashSet<>();
        private final List<Set<String>> components = new ArrayList<>();

        Components(Map<String, Map<String, Set<String>>> edges) {
            this.edges = edges;
        }

        List<Set<String>> strong() {
            for (String node : edges.keySet()) {
                if (!index.containsKey(node)) {
                    visit(node);
                }
            }
            return components;
        }

        private void visit(String node) {
            int number = index.size();
            index.put(node, number);
            lowest.put(node, number);
            stack.push(node);
            onStack.add(node);
            for (String next : edges.get(node).keySet()) {
                if (!index.containsKey(next)) {
                    visit(next);
                    lowest.put(node, Math.min(lowest.get(node), lowest.get(next)));
                } else if (onStack.contains(next)) {
                    lowest.put(node, Math.min(lowest.get(node), index.get(next)));
                }
            }
            if (Objects.equals(lowest.get(node), index.get(node))) {
                Set<String> component = new TreeSet<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(node));
                components.add(component);
            }
        }
    }
}
