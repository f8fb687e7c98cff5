package io.timedjobs.scheduler.jdbc.durable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import javax.sql.DataSource;

/** Test fixture; any thread. Databases with the schema in place, and shrunk settings. */
final class DurableTestSupport {

    private DurableTestSupport() {}

    /** The database with the tables created. */
    static ClusterDatabase database(DataSource dataSource) {
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        return database;
    }

    /**
     * A new database on the shared embedded PostgreSQL behind a pool of up to {@code size}
     * connections (enough for several engines at once), closed by the caller.
     */
    static HikariDataSource newPostgres(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://localhost:" + TestDatabases.postgresPort() + "/"
                + TestDatabases.newPostgresDatabaseName());
        config.setUsername("postgres");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(2000);
        return new HikariDataSource(config);
    }

    static DurableTaskStore store(DataSource dataSource) {
        ClusterDatabase database = database(dataSource);
        return new DurableTaskStore(dataSource, database.dialect(), database.tables());
    }

    /** Lookahead 500 ms, poll 50 ms, lease 1 s, 3 attempts from 50 ms apart, batches of 200. */
    static DurableTaskSettings fastSettings() {
        return new DurableTaskSettings(
                Duration.ofMillis(500),
                Duration.ofMillis(50),
                Duration.ofSeconds(1),
                3,
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                200,
                4);
    }
}
