package io.timedjobs.scheduler.jdbc.durable;

import javax.sql.DataSource;

/** The durable tasks statements on H2. */
class DurableTaskStoreH2Test extends DurableTaskStoreContract {

    @Override
    DataSource newDatabase() {
        return TestDatabases.h2();
    }

    @Override
    boolean postgres() {
        return false;
    }
}
