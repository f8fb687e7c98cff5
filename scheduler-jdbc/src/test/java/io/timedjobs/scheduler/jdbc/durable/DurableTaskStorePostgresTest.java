package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.testsupport.TestDatabases;

/** The durable tasks statements on embedded PostgreSQL. */
class DurableTaskStorePostgresTest extends DurableTaskStoreContract {

    @Override
    TestDatabases.Kind kind() {
        return TestDatabases.Kind.POSTGRESQL;
    }
}
