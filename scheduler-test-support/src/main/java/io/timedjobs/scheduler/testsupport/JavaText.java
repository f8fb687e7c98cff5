package io.timedjobs.scheduler.testsupport;

/**
 * Test code only: what {@link SourceStructure} needs to read Java text without a parser. Stateless.
 */
final class JavaText {

    private JavaText() {}

    /**
     * Returns the text with its comments removed and the insides of its string, text block and
     * character literals blanked, line breaks kept, so that patterns match code alone and report
     * the lines they match on.
     */
    static String codeOnly(String text) {
        StringBuilder code = new StringBuilder(text.length());
        int i = 0;
        int length = text.length();
        while (i < length) {
            char c = text.charAt(i);
            if (text.startsWith("//", i)) {
                while (i < length && text.charAt(i) != '\n') {
                    i++;
                }
            } else if (text.startsWith("/*", i)) {
                int end = text.indexOf("*/", i + 2);
                end = end < 0 ? length : end + 2;
                keepLineBreaks(text, i, end, code);
                i = end;
            } else if (text.startsWith("\"\"\"", i)) {
                int end = text.indexOf("\"\"\"", i + 3);
                end = end < 0 ? length : end + 3;
                code.append("\"\"");
                keepLineBreaks(text, i, end, code);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < length && text.charAt(end) != c && text.charAt(end) != '\n') {
                    end += text.charAt(end) == '\\' ? 2 : 1;
                }
                code.append(c).append(c);
                i = Math.min(end + 1, length);
            } else {
                code.append(c);
                i++;
            }
        }
        return code.toString();
    }

    private static void keepLineBreaks(String text, int from, int to, StringBuilder code) {
        for (int j = from; j < to; j++) {
            if (text.charAt(j) == '\n') {
                code.append('\n');
            }
        }
    }

    /**
     * Counts the parameters of a declaration whose list starts at {@code from}, just after its
     * opening parenthesis: the commas outside nested parentheses and type arguments, plus one,
     * or none for an empty list.
     */
    static int countParameters(String code, int from) {
        int depth = 0;
        int commas = 0;
        boolean empty = true;
        for (int i = from; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '(' || c == '<') {
                depth++;
            } else if (c == ')' || c == '>') {
                if (depth == 0) {
                    return empty ? 0 : commas + 1;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                commas++;
            }
            if (!Character.isWhitespace(c)) {
                empty = false;
            }
        }
        throw new IllegalArgumentException("No end to the parameter list at " + from);
    }
}
