package io.timedjobs.scheduler.jdbc.database;

import java.util.List;

/**
 * Not API; immutable: written by the SQL classes, put together and run by each {@link JdbcDialect}.
 * An insert of one row that updates the row with the same key instead when there is one, in
 * parts. Every part is SQL of our own, never user input.
 *
 * @param table the table
 * @param key the columns of the unique key, among {@code bound}
 * @param bound the bound columns, each with its SQL type, in bind order
 * @param insertOnly further columns, each with its SQL value, written only when inserting
 * @param updateOnly assignments, each column with its SQL value, made only when the row exists;
 *     the existing row's columns are qualified by the table's name
 * @param returning the columns returned
 */
public record Upsert(
        String table,
        List<String> key,
        List<Column> bound,
        List<Column> insertOnly,
        List<Column> updateOnly,
        String returning) {

    /** A column and an SQL text that goes with it: its type, or its value. */
    public record Column(String name, String sql) {}

    public String boundNames() {
        return String.join(", ", bound.stream().map(Column::name).toList());
    }

    public String insertOnlyNames() {
        return String.join(", ", insertOnly.stream().map(Column::name).toList());
    }

    public String insertOnlyValues() {
        return String.join(", ", insertOnly.stream().map(Column::sql).toList());
    }

    /** Returns the bound columns that are not part of the key. */
    public List<String> replaced() {
        return bound.stream()
                .map(Column::name)
                .filter(name -> !key.contains(name))
                .toList();
    }

    public String updateOnlyAssignments() {
        return String.join(
                ", ",
                updateOnly.stream()
                        .map(column -> column.name() + " = " + column.sql())
                        .toList());
    }
}
