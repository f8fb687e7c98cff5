package io.timedjobs.acceptance;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Immutable: one entry of an application's log in Spring Boot's default console pattern (ISO
 * timestamp, level, process id, {@code ---}, the rest): its level, and its text with the lines that
 * follow it (a stack trace). A line in no such pattern before the first entry (the JVM's own
 * output) is an entry of level {@code OTHER}.
 */
record LogLine(String level, String text) {

    private static final Pattern ENTRY = Pattern.compile(
            "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d+(?:Z|[+-]\\d{2}:\\d{2})\\s+(TRACE|DEBUG|INFO|WARN|ERROR)\\s+\\d+\\s+---\\s");

    /** Levels at which an operator must act: none of them in a healthy run. */
    static final List<String> ALARMING = List.of("WARN", "ERROR", "OTHER");

    static List<LogLine> parse(List<String> lines) {
        List<LogLine> entries = new ArrayList<>();
        StringBuilder text = null;
        String level = null;
        for (String line : lines) {
            Matcher matcher = ENTRY.matcher(line);
            if (matcher.find()) {
                if (text != null) {
                    entries.add(new LogLine(level, text.toString()));
                }
                level = matcher.group(1);
                text = new StringBuilder(line);
            } else if (text != null) {
                text.append('\n').append(line);
            } else if (!line.isBlank()) {
                entries.add(new LogLine("OTHER", line));
            }
        }
        if (text != null) {
            entries.add(new LogLine(level, text.toString()));
        }
        return entries;
    }

    /** Counts entries per level, every level present, in a fixed order. */
    static Map<String, Integer> countByLevel(List<LogLine> entries) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String level : List.of("DEBUG", "ERROR", "INFO", "OTHER", "TRACE", "WARN")) {
            counts.put(level, 0);
        }
        entries.forEach(entry -> counts.merge(entry.level(), 1, Integer::sum));
        return counts;
    }

    boolean isAlarming() {
        return ALARMING.contains(level);
    }

    /** Returns the message: the text after the logger's name and its colon. */
    String message() {
        String first = text.lines().findFirst().orElse("");
        int colon = first.indexOf(" : ");
        return colon < 0 ? first : first.substring(colon + 3);
    }

    /**
     * Returns {@code message} with instants, hashes, durations and counters replaced, so that lines
     * alike but for them compare equal.
     */
    static String shape(String message) {
        return message.replaceAll("\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z?", "<instant>")
                .replaceAll("[0-9a-f]{16,}", "<hash>")
                .replaceAll("\\b\\d+ ?ms\\b", "<n> ms")
                .replaceAll("_\\d+\\b", "_<n>");
    }

    boolean contains(String fragment) {
        return text.toLowerCase(Locale.ROOT).contains(fragment.toLowerCase(Locale.ROOT));
    }
}
