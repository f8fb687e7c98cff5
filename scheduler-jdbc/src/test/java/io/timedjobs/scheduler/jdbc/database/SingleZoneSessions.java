package io.timedjobs.scheduler.jdbc.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Thread-safe; for tests: a MariaDB data source whose every connection sets its session's time zone,
 * as an application's pool may, to show that no session time zone moves an instant.
 */
final class SingleZoneSessions extends DelegatingDataSource {

    private final String zone;

    SingleZoneSessions(DataSource dataSource, String zone) {
        super(dataSource);
        this.zone = zone;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = super.getConnection();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET time_zone = '" + zone + "'");
        }
        return connection;
    }
}
