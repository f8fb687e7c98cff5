package io.timedjobs.scheduler.jdbc.database;

import java.util.List;
import java.util.Objects;

/**
 * Immutable; any thread. One SQL statement, or a condition that goes into one, with the names of its
 * bind parameters beside it, in the order of its {@code ?} placeholders: what a call site must bind
 * is read here, next to the SQL, not counted from prose.
 *
 * <p>Nothing is parsed when a statement is built or run: {@link #placeholders()} counts the
 * placeholders for the test that walks every statement of every database and fails where binds and
 * placeholders disagree. {@link #args} checks only the number of values, one comparison.
 *
 * @param sql the SQL text, with one {@code ?} per bind
 * @param binds the names of the binds, in order
 */
public record Statement(String sql, List<String> binds) {

    public Statement {
        Objects.requireNonNull(sql, "sql");
        binds = List.copyOf(binds);
    }

    /** Returns a statement of {@code sql} whose binds are {@code binds}, in order. */
    public static Statement of(String sql, String... binds) {
        return new Statement(sql, List.of(binds));
    }

    /**
     * Returns {@code values}, one per bind, in order.
     *
     * @throws IllegalArgumentException when there are not as many values as binds
     */
    public Object[] args(Object... values) {
        if (values.length != binds.size()) {
            throw new IllegalArgumentException(
                    "Timed Jobs passed " + values.length + " values to a statement that binds " + binds + ": " + sql);
        }
        return values;
    }

    /**
     * Returns the number of {@code ?} placeholders of the SQL, outside quoted text and identifiers;
     * for tests: a statement is right when this equals the number of its binds.
     */
    public int placeholders() {
        int count = 0;
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '?') {
                count++;
            }
        }
        return count;
    }

    /** Returns the SQL, for messages and logs. */
    @Override
    public String toString() {
        return sql + " " + binds;
    }
}
