package io.timedjobs.scheduler.jdbc.database.h2;

import io.timedjobs.scheduler.jdbc.schema.SchemaFailures;
import java.sql.SQLException;
import java.util.Set;

/**
 * Stateless; any thread. How H2 says why a schema statement failed: its DDL commits at once, and it
 * has no lock across processes, so a change may be there already, made by a run that stopped or by
 * another process migrating the same server-mode database.
 */
final class H2SchemaFailures implements SchemaFailures {

    /** H2's NOT_ENOUGH_RIGHTS_FOR_1 and ADMIN_RIGHTS_REQUIRED. */
    private static final Set<Integer> NO_RIGHT = Set.of(90096, 90040);

    /** H2's "table exists" (42101), "index exists" (42111), "duplicate column name" (42121). */
    private static final Set<Integer> ALREADY_DONE = Set.of(42101, 42111, 42121);

    /** H2's DUPLICATE_KEY_1. */
    private static final int DUPLICATE_KEY = 23505;

    @Override
    public boolean isMissingRight(SQLException failure) {
        return NO_RIGHT.contains(failure.getErrorCode());
    }

    @Override
    public boolean isAlreadyDone(SQLException failure) {
        return ALREADY_DONE.contains(failure.getErrorCode());
    }

    @Override
    public boolean isRecordedElsewhere(SQLException failure) {
        return failure.getErrorCode() == DUPLICATE_KEY;
    }

    @Override
    public String rightFor(Change change) {
        return "schema owner (H2 lets the schema's owner or an admin change tables)";
    }
}
