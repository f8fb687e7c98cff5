package io.timedjobs.scheduler.jdbc.database;

/**
 * Not API; immutable: written by the SQL classes, put together and run by each {@link JdbcDialect}.
 * An {@code UPDATE} whose changed rows are read back, in parts that each dialect puts together
 * its own way. Every part is SQL of our own, never user input.
 *
 * @param table the table, whose rows a claim tells apart by their {@code id} column
 * @param set the assignments, without {@code SET}
 * @param condition which rows, without {@code WHERE}
 * @param order the order in which rows are claimed, with a leading space and {@code ORDER BY},
 *     or empty
 * @param columns the columns returned
 */
public record RowChange(String table, String set, String condition, String order, String columns) {}
