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

    /**
     * Reads no row, and fails when a column of a table is missing: how a database whose tables were
     * created by Flyway or Liquibase shows it is at the current version. Binds: none. {@code table}
     * and {@code column} are names of our own, never user input.
     */
    static String probe(String table, String column) {
        return "SELECT " + column + " FROM " + table + " WHERE 1 = 0";
    }

    /** The versions applied, lowest first. Binds: none. */
    static String appliedVersions(String versionTable) {
        return "SELECT version FROM " + versionTable + " ORDER BY version";
    }

    /**
     * Records a script as applied, by whom, at the database's time. Binds: version, script, applied
     * by. {@code now} is the dialect's clock expression.
     */
    static String recordVersion(String versionTable, String now) {
        return "INSERT INTO " + versionTable + " (version, script, applied_at, applied_by) VALUES (?, ?, " + now
                + ", ?)";
    }
}
