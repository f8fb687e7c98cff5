package io.timedjobs.scheduler.jdbc.durable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** Test fixture; any thread. A data source that can be switched off, as if its database had stopped. */
public final class SwitchableDataSource extends DelegatingDataSource {

    private volatile boolean down;

    public SwitchableDataSource(DataSource target) {
        super(target);
    }

    public void down() {
        down = true;
    }

    public void up() {
        down = false;
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (down) {
            throw new SQLTransientConnectionException("database stopped by the test");
        }
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        if (down) {
            throw new SQLTransientConnectionException("database stopped by the test");
        }
        return super.getConnection(username, password);
    }
}
