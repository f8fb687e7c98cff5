package io.timedjobs.scheduler.jdbc.schema;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Not API: read by the schema initializer, implemented in each database's package where its
 * failures differ from the portable reading. Stateless; any thread. How a database says why a
 * statement of a schema script failed.
 */
public interface SchemaFailures {

    /** The portable reading: SQL's standard state of a missing privilege, and nothing already done. */
    SchemaFailures PORTABLE = new SchemaFailures() {};

    /** A change a schema statement makes. */
    enum Change {
        CREATE_TABLE,
        ALTER_TABLE,
        CREATE_INDEX
    }

    /** Whether the statement failed because the user lacks a right; by default SQLSTATE 42501. */
    default boolean isMissingRight(SQLException failure) {
        return "42501".equals(failure.getSQLState());
    }

    /**
     * Whether the statement's change is already there, left by a run of the same script that stopped
     * halfway where DDL commits at once, or made by another process migrating beside this one; by
     * default never (a failed script left nothing, and instances migrate one at a time).
     */
    default boolean isAlreadyDone(SQLException failure) {
        return false;
    }

    /** Whether recording a version failed because another process recorded it first; by default never. */
    default boolean isRecordedElsewhere(SQLException failure) {
        return false;
    }

    /** The right a change needs, as the database calls it, or null for the statement's first word. */
    default @Nullable String rightFor(Change change) {
        return null;
    }
}
