package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.ServiceLoader;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * Stateless; any thread; used by {@link JdbcDialect} only. The supported databases: the services of
 * {@link JdbcDialect} listed in {@code META-INF/services}, each a subclass in a package of its own,
 * in the order a product name is tried against them.
 */
final class SupportedDatabases {

    private static final List<JdbcDialect> SUPPORTED =
            ServiceLoader.load(JdbcDialect.class, JdbcDialect.class.getClassLoader()).stream()
                    .map(ServiceLoader.Provider::get)
                    .toList();

    private SupportedDatabases() {}

    /** Returns the dialect whose name ({@link JdbcDialect#toString()}) is {@code name}. */
    static JdbcDialect named(String name) {
        return SUPPORTED.stream()
                .filter(dialect -> dialect.toString().equals(name))
                .findFirst()
                .orElseThrow(
                        () -> new IllegalStateException("Timed Jobs found no " + name + " dialect among " + SUPPORTED));
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
        for (JdbcDialect dialect : SUPPORTED) {
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
