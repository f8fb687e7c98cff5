package io.timedjobs.scheduler.jdbc.schema;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Stateless; used by {@link SchemaMigration} only. Reads why a statement of a schema script failed,
 * as the database's {@link SchemaFailures} says:
 * a right the database user lacks, or (on MariaDB, MySQL and H2, whose DDL commits at once) a change a
 * stopped earlier run, or on H2 another process, already made, which a run skips.
 */
final class SchemaStatementFailure {

    private SchemaStatementFailure() {}

    /** Whether the statement failed because the user lacks a right. */
    static boolean isMissingRight(JdbcDialect dialect, SQLException failure) {
        return of(dialect).isMissingRight(failure);
    }

    /** Whether the statement's change is already there (see {@link SchemaFailures#isAlreadyDone}). */
    static boolean isAlreadyDone(JdbcDialect dialect, SQLException failure) {
        return of(dialect).isAlreadyDone(failure);
    }

    /** Whether recording a version failed because another process recorded it first. */
    static boolean isRecordedElsewhere(JdbcDialect dialect, SQLException failure) {
        return of(dialect).isRecordedElsewhere(failure);
    }

    /** The right a statement needs, as the database calls it. */
    static String rightFor(JdbcDialect dialect, String statement) {
        String head = statement.strip().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
        SchemaFailures.Change change = null;
        if (head.startsWith("CREATE INDEX") || head.startsWith("CREATE UNIQUE INDEX")) {
            change = SchemaFailures.Change.CREATE_INDEX;
        } else if (head.startsWith("CREATE TABLE")) {
            change = SchemaFailures.Change.CREATE_TABLE;
        } else if (head.startsWith("ALTER TABLE")) {
            change = SchemaFailures.Change.ALTER_TABLE;
        }
        String right = change == null ? null : of(dialect).rightFor(change);
        if (right != null) {
            return right;
        }
        int space = head.indexOf(' ');
        return space < 0 ? head : head.substring(0, space);
    }

    private static SchemaFailures of(JdbcDialect dialect) {
        return dialect.statements(SchemaFailures.class, SchemaFailures.PORTABLE);
    }

    /** The first line of a statement, cut to a readable length. */
    static String firstLine(String statement) {
        String line = statement.strip().lines().findFirst().orElse("");
        return line.length() > 100 ? line.substring(0, 100) + "..." : line;
    }
}
