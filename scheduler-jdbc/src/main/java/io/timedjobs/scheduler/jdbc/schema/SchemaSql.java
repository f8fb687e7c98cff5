package io.timedjobs.scheduler.jdbc.schema;

/**
 * Stateless; any thread. The statements the schema initializer runs itself, readable in one place.
 * The tables are created by the scripts of each dialect, and the lock that keeps two instances from
 * running them at once is the dialect's.
 */
final class SchemaSql {

    private SchemaSql() {}

    /**
     * Reads no row of a table, and fails when the table is missing. Binds: none. {@code table} is a
     * name of {@code TableNames}, never user input.
     */
    static String probe(String table) {
        return "SELECT 1 FROM " + table + " WHERE 1 = 0";
    }
}
