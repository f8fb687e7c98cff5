package io.timedjobs.scheduler.jdbc.schema;

/**
 * Immutable; thrown by {@link SchemaInitializer} at start-up, read by anyone. Start-up refused
 * because the database user may not run a statement of the schema scripts: names the right it
 * lacks and how to go on (grant it and start again, or create the tables with Flyway or Liquibase
 * and turn the initialization off).
 */
public final class SchemaPrivilegeException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The key that turns the initialization off, for tables created by Flyway or Liquibase. */
    public static final String INITIALIZE_SCHEMA_NEVER = "timed-jobs.jdbc.initialize-schema=never";

    private final String right;

    SchemaPrivilegeException(String message, String right, Throwable cause) {
        super(message, cause);
        this.right = right;
    }

    /** The right the user lacks, as the database names it (for example {@code ALTER} or {@code CREATE}). */
    public String right() {
        return right;
    }
}
