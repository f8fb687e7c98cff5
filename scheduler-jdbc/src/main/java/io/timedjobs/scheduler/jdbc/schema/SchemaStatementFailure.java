package io.timedjobs.scheduler.jdbc.schema;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;

/**
 * Stateless; used by {@link SchemaMigration} only. Reads why a statement of a schema script failed:
 * a right the database user lacks, or (on MariaDB, MySQL and H2, whose DDL commits at once) a change a
 * stopped earlier run, or on H2 another process, already made, which a run skips.
 */
final class SchemaStatementFailure {

    /** PostgreSQL's insufficient_privilege. */
    private static final String POSTGRES_NO_PRIVILEGE = "42501";

    /** H2's NOT_ENOUGH_RIGHTS_FOR_1 and ADMIN_RIGHTS_REQUIRED. */
    private static final Set<Integer> H2_NO_RIGHT = Set.of(90096, 90040);

    /**
     * MariaDB's and MySQL's denials: of a command on a table (1142), on a database (1044), on a
     * column (1143), of a global privilege (1227).
     */
    private static final Set<Integer> MARIADB_DENIED = Set.of(1142, 1044, 1143, 1227);

    /** MariaDB's and MySQL's "table exists" (1050), "duplicate column" (1060), "duplicate key name" (1061). */
    private static final Set<Integer> MARIADB_ALREADY_DONE = Set.of(1050, 1060, 1061);

    /** H2's "table exists" (42101), "index exists" (42111), "duplicate column name" (42121). */
    private static final Set<Integer> H2_ALREADY_DONE = Set.of(42101, 42111, 42121);

    /** H2's DUPLICATE_KEY_1. */
    private static final int H2_DUPLICATE_KEY = 23505;

    private SchemaStatementFailure() {}

    /** Whether the statement failed because the user lacks a right. */
    static boolean isMissingRight(JdbcDialect dialect, SQLException failure) {
        if (dialect == JdbcDialect.MARIADB) {
            return MARIADB_DENIED.contains(failure.getErrorCode());
        }
        if (dialect == JdbcDialect.H2) {
            return H2_NO_RIGHT.contains(failure.getErrorCode());
        }
        return POSTGRES_NO_PRIVILEGE.equals(failure.getSQLState());
    }

    /**
     * Whether the statement's change is already there: left by a run of the same script that stopped
     * halfway where DDL commits at once (MariaDB, MySQL, H2), or, on H2, made by another process
     * migrating the same server-mode database at the same moment (H2 has no lock across processes).
     * On PostgreSQL a failed script left nothing, and its instances migrate one at a time.
     */
    static boolean isAlreadyDone(JdbcDialect dialect, SQLException failure) {
        if (dialect == JdbcDialect.H2) {
            return H2_ALREADY_DONE.contains(failure.getErrorCode());
        }
        return dialect == JdbcDialect.MARIADB && MARIADB_ALREADY_DONE.contains(failure.getErrorCode());
    }

    /**
     * Whether recording a version failed because another process recorded it first: on H2 only,
     * whose instances are not kept apart while they migrate.
     */
    static boolean isRecordedElsewhere(JdbcDialect dialect, SQLException failure) {
        return dialect == JdbcDialect.H2 && failure.getErrorCode() == H2_DUPLICATE_KEY;
    }

    /** The right a statement needs, as the database calls it. */
    static String rightFor(JdbcDialect dialect, String statement) {
        String head = statement.strip().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
        boolean createIndex = head.startsWith("CREATE INDEX") || head.startsWith("CREATE UNIQUE INDEX");
        boolean createTable = head.startsWith("CREATE TABLE");
        boolean alter = head.startsWith("ALTER TABLE");
        if (dialect == JdbcDialect.POSTGRESQL) {
            if (createTable) {
                return "CREATE on the schema";
            }
            if (alter || createIndex) {
                return "ownership of the table (PostgreSQL has no ALTER or INDEX right: the table's owner alters it)";
            }
        } else if (dialect == JdbcDialect.MARIADB) {
            if (createTable) {
                return "CREATE";
            }
            if (alter) {
                return "ALTER";
            }
            if (createIndex) {
                return "INDEX";
            }
        } else if (createTable || alter || createIndex) {
            return "schema owner (H2 lets the schema's owner or an admin change tables)";
        }
        int space = head.indexOf(' ');
        return space < 0 ? head : head.substring(0, space);
    }

    /** The first line of a statement, cut to a readable length. */
    static String firstLine(String statement) {
        String line = statement.strip().lines().findFirst().orElse("");
        return line.length() > 100 ? line.substring(0, 100) + "..." : line;
    }
}
