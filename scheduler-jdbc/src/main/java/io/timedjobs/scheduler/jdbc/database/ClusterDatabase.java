package io.timedjobs.scheduler.jdbc.database;

import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Immutable, thread-safe: the database Timed Jobs coordinates through, with what every statement
 * needs: the data source, a {@link JdbcTemplate} on it, its {@link JdbcDialect} and the {@link
 * TableNames}.
 */
public final class ClusterDatabase {

    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final JdbcDialect dialect;
    private final TableNames tables;

    /** Wraps a data source whose dialect is already known. */
    public ClusterDatabase(DataSource dataSource, JdbcDialect dialect, TableNames tables) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.jdbc = new JdbcTemplate(dataSource);
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.tables = Objects.requireNonNull(tables, "tables");
    }

    /** Detects the dialect of the data source; fails at once if the database is not supported. */
    public static ClusterDatabase of(DataSource dataSource, TableNames tables) {
        return new ClusterDatabase(dataSource, JdbcDialect.detect(dataSource), tables);
    }

    public DataSource dataSource() {
        return dataSource;
    }

    public JdbcTemplate jdbc() {
        return jdbc;
    }

    public JdbcDialect dialect() {
        return dialect;
    }

    public TableNames tables() {
        return tables;
    }

    @Override
    public String toString() {
        return "ClusterDatabase[" + dialect + ", " + tables.prefix() + "*]";
    }
}
