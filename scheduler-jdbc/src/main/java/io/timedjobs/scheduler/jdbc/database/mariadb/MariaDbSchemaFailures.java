package io.timedjobs.scheduler.jdbc.database.mariadb;

import io.timedjobs.scheduler.jdbc.schema.SchemaFailures;
import java.sql.SQLException;
import java.util.Set;

/**
 * Stateless; any thread. How MariaDB and MySQL say why a schema statement failed: their DDL commits
 * at once, so a change may be there already, left by a run that stopped halfway.
 */
final class MariaDbSchemaFailures implements SchemaFailures {

    /** Denials of a command on a table (1142), on a database (1044), on a column (1143), of a global privilege (1227). */
    private static final Set<Integer> DENIED = Set.of(1142, 1044, 1143, 1227);

    /** "Table exists" (1050), "duplicate column" (1060), "duplicate key name" (1061). */
    private static final Set<Integer> ALREADY_DONE = Set.of(1050, 1060, 1061);

    @Override
    public boolean isMissingRight(SQLException failure) {
        return DENIED.contains(failure.getErrorCode());
    }

    @Override
    public boolean isAlreadyDone(SQLException failure) {
        return ALREADY_DONE.contains(failure.getErrorCode());
    }

    @Override
    public String rightFor(Change change) {
        return switch (change) {
            case CREATE_TABLE -> "CREATE";
            case ALTER_TABLE -> "ALTER";
            case CREATE_INDEX -> "INDEX";
        };
    }
}
