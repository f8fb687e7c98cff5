package io.timedjobs.scheduler.jdbc.schema;

import io.timedjobs.scheduler.jdbc.database.Statement;

/**
 * Stateless; any thread. The statements the schema initializer runs itself, readable in one place.
 * The tables are created by the scripts of each dialect, and the lock that keeps two instances from
 * running them at once is the dialect's. Table and column names are names of our own ({@code
 * TableNames}), never user input.
 */
final class SchemaSql {

    private SchemaSql() {}

    /** Reads no row of a table, and fails when the table is missing. */
    static Statement probe(String table) {
        return Statement.of("SELECT 1 FROM " + table + " WHERE 1 = 0");
    }

    /**
     * Reads no row, and fails when a column of a table is missing: how a database whose tables were
     * created by Flyway or Liquibase shows it is at the current version.
     */
    static Statement probe(String table, String column) {
        return Statement.of("SELECT " + column + " FROM " + table + " WHERE 1 = 0");
    }

    /** The versions applied, lowest first. */
    static Statement appliedVersions(String versionTable) {
        return Statement.of("SELECT version FROM " + versionTable + " ORDER BY version");
    }

    /** Records a script as applied, by whom, at the database's time ({@code now}, the dialect's clock). */
    static Statement recordVersion(String versionTable, String now) {
        return Statement.of(
                "INSERT INTO " + versionTable + " (version, script, applied_at, applied_by) VALUES (?, ?, " + now
                        + ", ?)",
                "version",
                "script",
                "applied by");
    }
}
