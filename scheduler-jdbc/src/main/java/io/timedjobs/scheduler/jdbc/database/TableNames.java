package io.timedjobs.scheduler.jdbc.database;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Immutable, thread-safe: the names of the Timed Jobs tables, derived from one prefix.
 *
 * <p>Table names are the only part of our SQL that is formatted in rather than bound, so the prefix
 * is checked here, once, as a plain SQL identifier: a letter or underscore, then letters, digits
 * and underscores, at most {@value #MAX_PREFIX_LENGTH} characters. Names are used unquoted, so the
 * database folds their case as it does for any unquoted identifier.
 */
public final class TableNames {

    /** Prefix of every table unless configured otherwise. */
    public static final String DEFAULT_PREFIX = "timed_jobs_";

    /**
     * What the schema scripts write where the prefix goes: a placeholder in Flyway's and
     * Liquibase's syntax, named {@value #PLACEHOLDER_NAME}.
     */
    public static final String PLACEHOLDER = "${timedJobsPrefix}";

    /** The placeholder's name, to define in Flyway ({@code spring.flyway.placeholders.*}) or Liquibase. */
    public static final String PLACEHOLDER_NAME = "timedJobsPrefix";

    /**
     * The version of the schema this code's statements are written for; recorded in each instance's
     * row, so that instances can tell the ones of an older release, which know less.
     */
    public static final int SCHEMA_VERSION = 7;

    /** Property that sets the prefix, named in error messages. */
    public static final String PREFIX_PROPERTY = "timed-jobs.jdbc.table-prefix";

    /** Longest prefix accepted: leaves room for the longest suffix within PostgreSQL's 63 bytes. */
    public static final int MAX_PREFIX_LENGTH = 40;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String prefix;

    /**
     * Checks the prefix and derives the table names from it.
     *
     * @throws IllegalArgumentException naming {@value #PREFIX_PROPERTY} if the prefix is not a plain
     *     SQL identifier
     */
    public TableNames(String prefix) {
        Objects.requireNonNull(prefix, PREFIX_PROPERTY);
        if (prefix.length() > MAX_PREFIX_LENGTH || !IDENTIFIER.matcher(prefix).matches()) {
            throw new IllegalArgumentException(PREFIX_PROPERTY + " must be a plain SQL identifier (a letter or '_',"
                    + " then letters, digits or '_', at most " + MAX_PREFIX_LENGTH + " characters), was '"
                    + prefix + "'");
        }
        this.prefix = prefix;
    }

    /** Returns the names with the default prefix {@value #DEFAULT_PREFIX}. */
    public static TableNames defaults() {
        return new TableNames(DEFAULT_PREFIX);
    }

    /** Returns the prefix. */
    public String prefix() {
        return prefix;
    }

    /** Returns the table of running instances: name, start time, heartbeat. */
    public String instances() {
        return table("instances");
    }

    /** Returns the table of clustered jobs: one row per job, its definition, next fire and run lease. */
    public String jobs() {
        return table("jobs");
    }

    /** Returns the table of recorded fires: one row per (job, nominal fire instant), pruned. */
    public String fires() {
        return table("fires");
    }

    /** Returns the table of each job's definitions: one row per (job, definition) it has had. */
    public String jobDefinitions() {
        return table("job_definitions");
    }

    /** Returns the table of which definition of each job each instance carries. */
    public String jobCarriers() {
        return table("job_carriers");
    }

    /** Returns the table of the run history: one row per clustered run and durable execution, pruned. */
    public String runHistory() {
        return table("run_history");
    }

    /** Returns the table of the schema versions applied by the initializer. */
    public String schemaVersion() {
        return table("schema_version");
    }

    /** Returns the table of durable tasks: one row per (handler, key), one-off or recurring. */
    public String tasks() {
        return table("tasks");
    }

    /**
     * Returns the prefixed name of a table of ours; {@code suffix} is a constant of our code, never
     * user input.
     */
    public String table(String suffix) {
        return prefix + suffix;
    }

    /** Returns every table the versioned schema scripts create, in creation order. */
    public List<String> all() {
        return List.of(instances(), jobs(), fires(), tasks(), jobDefinitions(), jobCarriers(), runHistory());
    }

    /**
     * Returns a script of ours with this prefix filled in: where it has the {@link #PLACEHOLDER}, and
     * (for scripts written before it) where it has {@value #DEFAULT_PREFIX}. Only our own scripts go
     * through here: each such occurrence is a table or index name.
     */
    public String rewrite(String script) {
        String legacy = prefix.equals(DEFAULT_PREFIX) ? script : script.replace(DEFAULT_PREFIX, prefix);
        return legacy.replace(PLACEHOLDER, prefix);
    }

    @Override
    public String toString() {
        return "TableNames[" + prefix + "*]";
    }
}
