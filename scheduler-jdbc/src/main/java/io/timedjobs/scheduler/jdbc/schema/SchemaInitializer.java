package io.timedjobs.scheduler.jdbc.schema;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Called once at start-up, from one thread: creates the Timed Jobs tables or checks that they
 * exist, per {@link Mode}.
 *
 * <p>The schema is versioned: scripts V1, V2, ... per database, applied in order and recorded in
 * the version table (see {@link SchemaMigration}). Several instances may start at once: the missing
 * scripts run in one transaction, under the lock of the database's {@link JdbcDialect} (on
 * PostgreSQL an advisory lock, held until the commit; on H2 a lock of this JVM only, so instances in
 * separate JVMs on one H2 server must not start their first run together), so that one instance
 * migrates while the others wait and then find the schema current.
 */
public final class SchemaInitializer {

    /** The first schema script, in the directory of each dialect; {@link #scripts()} lists them all. */
    public static final String SCRIPT_NAME = "V1__timed_jobs.sql";

    private static final Log logger = LogFactory.getLog(SchemaInitializer.class);

    /** When to create the tables, as Spring Boot's own {@code *.jdbc.initialize-schema} keys. */
    public enum Mode {
        /** Only for in-memory databases (H2 {@code jdbc:h2:mem:}); otherwise check the tables. */
        EMBEDDED,
        /** Always run the script; it only creates what is missing. */
        ALWAYS,
        /** Never create anything; fail at start-up if a table is missing, naming the script. */
        NEVER
    }

    private final DataSource dataSource;
    private final JdbcDialect dialect;
    private final TableNames tables;

    /** Creates the initializer of the database's tables. */
    public SchemaInitializer(ClusterDatabase database) {
        this(database.dataSource(), database.dialect(), database.tables());
    }

    public SchemaInitializer(DataSource dataSource, JdbcDialect dialect, TableNames tables) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.tables = Objects.requireNonNull(tables, "tables");
    }

    /**
     * Creates the missing tables when the mode says so, then checks that every table exists.
     *
     * @throws IllegalStateException naming the script to run when a table is missing
     */
    public void initialize(Mode mode) {
        Objects.requireNonNull(mode, "mode");
        // Only an H2 URL can name a database that closes at exit; closesAtExit tells the others apart.
        warnIfClosedAtExit(configuredUrl(dataSource));
        if (mode == Mode.ALWAYS || (mode == Mode.EMBEDDED && isInMemory())) {
            runScript();
        }
        verify(mode);
    }

    /** Returns the versioned scripts of this database, version 1 first, as class-path locations. */
    public List<String> scripts() {
        return SchemaMigration.SCRIPTS.stream().map(dialect::schemaLocation).toList();
    }

    /** Returns the schema version this release runs on. */
    public static int currentVersion() {
        return SchemaMigration.CURRENT;
    }

    private boolean isInMemory() {
        try (Connection connection = dataSource.getConnection()) {
            String url = connection.getMetaData().getURL();
            return url != null && url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:");
        } catch (SQLException ex) {
            throw new IllegalStateException("Timed Jobs could not read the URL of its database", ex);
        }
    }

    /**
     * The URL the data source was configured with, settings included (H2's connection metadata
     * drops them): HikariCP's getJdbcUrl, getUrl of Spring's and most pools' data sources, or getURL
     * of H2's own; null when the data source shows none.
     */
    static @Nullable String configuredUrl(DataSource dataSource) {
        DataSource target = dataSource;
        while (target instanceof DelegatingDataSource delegating && delegating.getTargetDataSource() != null) {
            target = delegating.getTargetDataSource();
        }
        for (String getter : List.of("getJdbcUrl", "getUrl", "getURL")) {
            try {
                Method method = target.getClass().getMethod(getter);
                if (method.getReturnType() == String.class) {
                    return (String) method.invoke(target);
                }
            } catch (ReflectiveOperationException | RuntimeException ex) {
                // not this getter
            }
        }
        return null;
    }

    /**
     * Warns once when an H2 database opened in this JVM (a file, mixed mode with AUTO_SERVER among
     * them) closes itself at JVM exit: H2's shutdown hook then closes it while Spring is still
     * closing, before the scheduler has released its claims and deregistered the instance.
     */
    static void warnIfClosedAtExit(@Nullable String url) {
        if (url == null || !closesAtExit(url)) {
            return;
        }
        String why = "Timed Jobs uses the H2 database " + url.split(";", 2)[0]
                + ", which H2 closes itself when the JVM shuts down, while the application is still closing:"
                + " durable task claims are then not released and this instance is not deregistered"
                + " (\"Database is already closed\" errors at shutdown). The DataSource must outlive the"
                + " scheduler. ";
        if (url.toLowerCase(Locale.ROOT).replace(" ", "").contains(";auto_server=true")) {
            logger.warn(why + "H2 refuses DB_CLOSE_ON_EXIT=FALSE with AUTO_SERVER=TRUE: for several instances,"
                    + " run an H2 TCP server and connect with jdbc:h2:tcp://... instead, or use PostgreSQL.");
        } else {
            logger.warn(why + "Add \";DB_CLOSE_ON_EXIT=FALSE\" to the database URL (spring.datasource.url) so"
                    + " that Spring closes the DataSource last.");
        }
    }

    /**
     * Whether the URL opens an H2 database in this JVM that H2 closes at JVM exit: not in memory,
     * not a remote server (whose own JVM holds the database), and without DB_CLOSE_ON_EXIT=FALSE.
     */
    static boolean closesAtExit(@Nullable String url) {
        if (url == null) {
            return false;
        }
        String lower = url.toLowerCase(Locale.ROOT).replace(" ", "");
        if (!lower.startsWith("jdbc:h2:")) {
            return false;
        }
        String database = lower.substring("jdbc:h2:".length());
        if (database.startsWith("mem:") || database.startsWith("tcp:") || database.startsWith("ssl:")) {
            return false;
        }
        return !lower.contains(";db_close_on_exit=false");
    }

    /**
     * Applies the missing versioned scripts in one transaction, under the dialect's schema lock, so
     * that instances starting together migrate once (see {@link JdbcDialect#runSchemaScript}).
     */
    private void runScript() {
        SchemaMigration migration = new SchemaMigration(dialect, tables);
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            List<Integer> ran;
            try {
                List<List<Integer>> result = new java.util.ArrayList<>(1);
                dialect.runSchemaScript(connection, () -> {
                    result.add(migration.migrate(connection));
                    connection.commit();
                });
                ran = result.get(0);
            } catch (SQLException | RuntimeException ex) {
                connection.rollback();
                throw ex;
            } finally {
                connection.setAutoCommit(autoCommit);
            }
            if (ran.isEmpty()) {
                logger.info("Timed Jobs tables " + tables.prefix() + "* are at version " + SchemaMigration.CURRENT);
            } else {
                logger.info("Timed Jobs tables " + tables.prefix() + "* brought to version " + SchemaMigration.CURRENT
                        + " by scripts " + ran + " of " + dialect.schemaLocation(""));
            }
        } catch (SQLException ex) {
            throw new IllegalStateException("Timed Jobs could not create or upgrade its tables with " + scripts(), ex);
        }
    }

    private void verify(Mode mode) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        List<String> probes = new java.util.ArrayList<>();
        for (String table : tables.all()) {
            probes.add(SchemaSql.probe(table).sql());
        }
        // Version 2 added columns to version 1's tables: a database left at version 1 lacks them.
        probes.add(SchemaSql.probe(tables.jobs(), "definition_key").sql());
        probes.add(SchemaSql.probe(tables.instances(), "schema_version").sql());
        // Version 3 added the trace context of durable tasks, version 4 the catch-up watermark
        // (version 5 a table, probed above), version 6 the fates of fires in the run history,
        // version 7 the mark of an instance in a graceful stop.
        probes.add(SchemaSql.probe(tables.tasks(), "trace_parent").sql());
        probes.add(SchemaSql.probe(tables.jobs(), "caught_up_to").sql());
        probes.add(SchemaSql.probe(tables.runHistory(), "skip_reason").sql());
        probes.add(SchemaSql.probe(tables.runHistory(), "stack_trace").sql());
        probes.add(SchemaSql.probe(tables.instances(), "leaving").sql());
        for (String probe : probes) {
            try {
                jdbc.queryForList(probe);
            } catch (DataAccessException missing) {
                throw new IllegalStateException(
                        "A Timed Jobs table or column of schema version " + SchemaMigration.CURRENT
                                + " is missing (" + probe + " failed). Create or upgrade them with " + scripts()
                                + " (from the scheduler-jdbc jar, with Flyway or Liquibase, defining the placeholder "
                                + TableNames.PLACEHOLDER_NAME + " as your table prefix, "
                                + TableNames.DEFAULT_PREFIX + " by default),"
                                + " or set timed-jobs.jdbc.initialize-schema=always (it is "
                                + mode.name().toLowerCase(Locale.ROOT)
                                + ")",
                        missing);
            }
        }
    }
}
