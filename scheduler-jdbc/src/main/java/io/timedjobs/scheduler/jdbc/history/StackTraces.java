package io.timedjobs.scheduler.jdbc.history;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.jspecify.annotations.Nullable;

/** Stateless; any thread. Bounded stack traces for the {@link RunHistory}. */
final class StackTraces {

    private StackTraces() {}

    /**
     * Returns {@code failure}'s stack trace as {@link Throwable#printStackTrace()} writes it, cut at
     * a line's end so that it and a last line {@code "\t... N more"} (N the lines left out) hold in
     * {@code max} characters.
     */
    static String of(Throwable failure, int max) {
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            failure.printStackTrace(out);
        }
        String whole = text.toString().replace("\r\n", "\n");
        if (whole.length() <= max) {
            return whole;
        }
        String[] lines = whole.split("\n");
        // room for the last line, whatever N is
        int budget = max - ("\t... " + lines.length + " more").length() - 1;
        StringBuilder kept = new StringBuilder();
        int line = 0;
        while (line < lines.length && kept.length() + lines[line].length() + 1 <= budget) {
            kept.append(lines[line]).append('\n');
            line++;
        }
        if (line == 0) { // one line longer than the bound: the message itself
            kept.append(cut(lines[0], budget - 1)).append('\n');
            line = 1;
        }
        return kept.append("\t... ").append(lines.length - line).append(" more").toString();
    }

    /** Returns {@code trace} cut to {@code max} characters, never within a surrogate pair; null as is. */
    static @Nullable String bounded(@Nullable String trace, int max) {
        return trace == null ? null : cut(trace, max);
    }

    private static String cut(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
        return text.substring(0, end);
    }
}
