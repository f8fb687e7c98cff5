package io.timedjobs.scheduler.jdbc.durable;

import javax.sql.DataSource;

/** The durable tasks statements on embedded PostgreSQL. */
class DurableTaskStorePostgresTest extends DurableTaskStoreContract {

    @Override
    DataSource newDatabase() {
        return TestDatabases.postgres();
    }

    @Override
    boolean postgres() {
        return true;
    }
}
