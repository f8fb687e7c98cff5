package io.timedjobs.scheduler.autoconfigure;

import static io.timedjobs.scheduler.autoconfigure.SchedulerProperties.PREFIX;

import java.util.Objects;

/**
 * Bound once at start-up, then read by the auto-configurations: the {@code timed-jobs.jdbc.*} keys,
 * the tables of scheduler-jdbc.
 */
public class JdbcProperties {

    /**
     * When to create the tables: 'embedded' for in-memory databases only, 'always', or 'never'
     * (then they must exist, created with the scripts in the scheduler-jdbc jar).
     */
    private InitializeSchema initializeSchema = InitializeSchema.EMBEDDED;

    /** Prefix of the table names: letters, digits and underscores, starting with a letter or underscore. */
    private String tablePrefix = "timed_jobs_";

    public InitializeSchema getInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(InitializeSchema initializeSchema) {
        this.initializeSchema = Objects.requireNonNull(initializeSchema, PREFIX + ".jdbc.initialize-schema");
    }

    public String getTablePrefix() {
        return tablePrefix;
    }

    public void setTablePrefix(String tablePrefix) {
        this.tablePrefix = Objects.requireNonNull(tablePrefix, PREFIX + ".jdbc.table-prefix");
    }

    /** Values of 'initialize-schema', as Spring Boot's own '*.jdbc.initialize-schema' keys. */
    public enum InitializeSchema {
        /** Create the tables in in-memory databases only. */
        EMBEDDED,
        /** Create the tables that are missing, on any database. */
        ALWAYS,
        /** Never create tables. */
        NEVER
    }
}
