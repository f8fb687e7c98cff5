package io.timedjobs.scheduler.jdbc.schema;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.TreeSet;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.io.ClassPathResource;
import org.springframework.util.FileCopyUtils;

/**
 * Used by {@link SchemaInitializer} only, on one connection, under the dialect's schema lock: brings
 * the tables to the current version by running the versioned scripts not applied yet, in order, each
 * recorded in the version table.
 *
 * <p>A database whose tables a version 1 release created has no version table: its tables are
 * recorded as version 1 ("found in place") and the later scripts run on top. Every script only adds
 * to the one before (expand now, contract in a later release), so instances of the previous release
 * keep running while the new ones migrate.
 */
final class SchemaMigration {

    /** The versioned scripts of every dialect, version 1 first: version n is the n-th. */
    static final List<String> SCRIPTS = List.of(
            "V1__timed_jobs.sql",
            "V2__job_definitions.sql",
            "V3__trace_context.sql",
            "V4__catch_up.sql",
            "V5__run_history.sql",
            "V6__fates.sql",
            "V7__instances_leaving.sql");

    /** The schema version this code runs on. */
    static final int CURRENT = SCRIPTS.size();

    /** The script that creates the version table, not versioned itself. */
    static final String VERSION_TABLE_SCRIPT = "schema_version.sql";

    private static final Log logger = LogFactory.getLog(SchemaMigration.class);

    private final JdbcDialect dialect;
    private final TableNames tables;

    static {
        if (CURRENT != TableNames.SCHEMA_VERSION) {
            throw new IllegalStateException("The scripts end at version " + CURRENT + " but the statements are written"
                    + " for version " + TableNames.SCHEMA_VERSION);
        }
    }

    SchemaMigration(JdbcDialect dialect, TableNames tables) {
        this.dialect = dialect;
        this.tables = tables;
    }

    /**
     * Applies the scripts missing on {@code connection} (auto-commit off; the caller commits) and
     * returns the versions it applied, lowest first; none when the schema is current.
     */
    List<Integer> migrate(Connection connection) throws SQLException {
        execute(connection, VERSION_TABLE_SCRIPT);
        TreeSet<Integer> applied = appliedVersions(connection);
        if (applied.isEmpty() && exists(connection, tables.jobs())) {
            record(connection, 1, SCRIPTS.get(0) + " (found in place)");
            applied.add(1);
            logger.info("Timed Jobs tables " + tables.prefix() + "* found at version 1; recorded as such");
        }
        List<Integer> ran = new java.util.ArrayList<>();
        for (int version = 1; version <= CURRENT; version++) {
            if (!applied.contains(version)) {
                String script = SCRIPTS.get(version - 1);
                execute(connection, script);
                record(connection, version, script);
                ran.add(version);
            }
        }
        return ran;
    }

    /** Returns a script of this database, its table prefix filled in. */
    String script(String name) {
        String location = dialect.schemaLocation(name);
        try {
            byte[] bytes = FileCopyUtils.copyToByteArray(new ClassPathResource(location).getInputStream());
            return tables.rewrite(new String(bytes, StandardCharsets.UTF_8));
        } catch (IOException ex) {
            throw new IllegalStateException("Schema script " + location + " is missing from the class path", ex);
        }
    }

    /**
     * Runs a script statement by statement. A statement that fails for want of a right ends the run
     * with a {@link SchemaPrivilegeException} naming the right. On MariaDB, MySQL and H2, whose DDL
     * commits at once, a run of a script that stopped halfway left its first statements done (and on
     * H2, another process may be running the same script): their "already exists" errors are skipped,
     * so that the script runs to its end.
     */
    private void execute(Connection connection, String name) throws SQLException {
        for (String sql : statements(script(name))) {
            try (Statement statement = connection.createStatement()) {
                statement.execute(sql);
            } catch (SQLException failure) {
                if (SchemaStatementFailure.isAlreadyDone(dialect, failure)) {
                    logger.info("Timed Jobs schema script " + name + ": " + SchemaStatementFailure.firstLine(sql)
                            + " was done already, by an earlier run that stopped halfway or another instance starting"
                            + " beside this one (" + SchemaStatementFailure.firstLine(failure.getMessage())
                            + "); going on");
                    continue;
                }
                if (SchemaStatementFailure.isMissingRight(dialect, failure)) {
                    throw missingRight(name, sql, failure);
                }
                throw failure;
            }
        }
    }

    /**
     * The statements of a script: whole-line {@code --} comments dropped, split where a line ends in
     * {@code ;}. The scripts are written for this: no {@code ;} ends a line inside a statement, and no
     * comment follows code on its line.
     */
    static List<String> statements(String script) {
        StringBuilder code = new StringBuilder();
        for (String line : script.split("\\R")) {
            if (!line.strip().startsWith("--")) {
                code.append(line).append('\n');
            }
        }
        return java.util.Arrays.stream(code.toString().split(";[ \\t]*\n"))
                .map(String::strip)
                .filter(statement -> !statement.isEmpty())
                .toList();
    }

    private SchemaPrivilegeException missingRight(String name, String sql, SQLException failure) {
        String right = SchemaStatementFailure.rightFor(dialect, sql);
        String folder = dialect.schemaLocation("");
        return new SchemaPrivilegeException(
                "Timed Jobs could not create or upgrade its tables: the database user lacks the right " + right
                        + " for \"" + SchemaStatementFailure.firstLine(sql) + "\" of " + dialect.schemaLocation(name)
                        + " (the database said: " + failure.getMessage() + "). Grant " + right
                        + " to the user and start again: the next start runs what is still missing. Or create the"
                        + " tables with Flyway or Liquibase from classpath:" + folder + " and set "
                        + SchemaPrivilegeException.INITIALIZE_SCHEMA_NEVER + "; the application itself then needs"
                        + " only SELECT, INSERT, UPDATE and DELETE on them.",
                right,
                failure);
    }

    private TreeSet<Integer> appliedVersions(Connection connection) throws SQLException {
        TreeSet<Integer> versions = new TreeSet<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        SchemaSql.appliedVersions(tables.schemaVersion()).sql())) {
            while (rows.next()) {
                versions.add(rows.getInt(1));
            }
        }
        return versions;
    }

    private void record(Connection connection, int version, String script) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                SchemaSql.recordVersion(tables.schemaVersion(), dialect.now()).sql())) {
            insert.setInt(1, version);
            insert.setString(2, script);
            insert.setString(3, appliedBy());
            insert.executeUpdate();
        } catch (SQLException failure) {
            if (!SchemaStatementFailure.isRecordedElsewhere(dialect, failure)) {
                throw failure;
            }
            logger.info("Timed Jobs schema version " + version + " was recorded by another instance starting beside"
                    + " this one");
        }
    }

    /**
     * Whether a table exists, read from the catalog: a probe of a missing table would fail, and the
     * failure spoil the transaction and be logged by some drivers.
     */
    private boolean exists(Connection connection, String table) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(dialect.tableExists())) {
            query.setString(1, table);
            try (ResultSet found = query.executeQuery()) {
                return found.next() && found.getInt(1) > 0;
            }
        }
    }

    private static String appliedBy() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException | RuntimeException e) {
            host = "unknown-host";
        }
        String by = host + " pid " + ProcessHandle.current().pid();
        return by.length() > 200 ? by.substring(0, 200) : by;
    }
}
