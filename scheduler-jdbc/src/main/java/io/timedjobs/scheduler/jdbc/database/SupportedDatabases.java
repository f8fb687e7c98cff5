package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Stateless; any thread; used by {@link JdbcDialect} only. The supported databases: the services of
 * {@link JdbcDialect} listed in {@code META-INF/services}, each a subclass in a package of its own,
 * in the order a product name is tried against them. The built-in ones are there even where a
 * packaging of the application dropped or merged the services file badly: a built-in the services
 * did not yield is made by its class name. A provider that cannot be made is skipped, with a WARN.
 */
final class SupportedDatabases {

    /** The dialects this module ships, by class name: named, not imported, so no package cycle. */
    static final List<String> BUILT_IN = List.of(
            "io.timedjobs.scheduler.jdbc.database.postgresql.PostgresDialect",
            "io.timedjobs.scheduler.jdbc.database.h2.H2Dialect",
            "io.timedjobs.scheduler.jdbc.database.mariadb.MariaDbDialect");

    private static final Log logger = LogFactory.getLog(SupportedDatabases.class);

    private SupportedDatabases() {}

    /**
     * Loaded on first use, not with this class: making a dialect initializes {@link JdbcDialect},
     * whose constants ask this class for them.
     */
    private static final class Loaded {
        static final List<JdbcDialect> SUPPORTED = load(JdbcDialect.class.getClassLoader());
    }

    /** The dialects {@code loader} finds as services, and the built-in ones it did not find. */
    static List<JdbcDialect> load(ClassLoader loader) {
        Map<String, JdbcDialect> found = new LinkedHashMap<>();
        Iterator<JdbcDialect> providers =
                ServiceLoader.load(JdbcDialect.class, loader).iterator();
        while (true) {
            try {
                if (!providers.hasNext()) {
                    break;
                }
                JdbcDialect dialect = providers.next();
                found.putIfAbsent(dialect.getClass().getName(), dialect);
            } catch (ServiceConfigurationError broken) {
                // the loader goes on to the next provider after an error
                logger.warn("Timed Jobs skips a database dialect listed in META-INF/services that could not be"
                        + " made: " + broken.getMessage());
            }
        }
        for (String name : BUILT_IN) {
            if (!found.containsKey(name)) {
                found.put(name, make(name, loader));
            }
        }
        return List.copyOf(found.values());
    }

    private static JdbcDialect make(String className, ClassLoader loader) {
        try {
            return (JdbcDialect) Class.forName(className, true, loader)
                    .getDeclaredConstructor()
                    .newInstance();
        } catch (ReflectiveOperationException | LinkageError ex) {
            throw new IllegalStateException("Timed Jobs could not make its built-in dialect " + className, ex);
        }
    }

    /** Returns the dialect whose name ({@link JdbcDialect#toString()}) is {@code name}. */
    static JdbcDialect named(String name) {
        return Loaded.SUPPORTED.stream()
                .filter(dialect -> dialect.toString().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(
                        "Timed Jobs found no " + name + " dialect among " + Loaded.SUPPORTED));
    }

    /** As {@link JdbcDialect#detect}. */
    static JdbcDialect detect(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            JdbcDialect dialect = forProductName(metaData.getDatabaseProductName());
            dialect.checkVersion(metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion());
            return dialect;
        } catch (SQLException ex) {
            throw new DataAccessResourceFailureException(
                    "Timed Jobs could not reach its database to detect which one it is", ex);
        }
    }

    /** As {@link JdbcDialect#forProductName}. */
    static JdbcDialect forProductName(@Nullable String productName) {
        String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
        for (JdbcDialect dialect : Loaded.SUPPORTED) {
            if (dialect.isProduct(name)) {
                return dialect;
            }
        }
        throw new IllegalStateException("Timed Jobs keeps its tables in PostgreSQL, MariaDB, MySQL or H2, but the"
                + " DataSource is '"
                + productName + "'. Mark a supported DataSource with @TimedJobsDataSource, or set"
                + " timed-jobs.cluster.enabled=false to run every instance on its own.");
    }
}
