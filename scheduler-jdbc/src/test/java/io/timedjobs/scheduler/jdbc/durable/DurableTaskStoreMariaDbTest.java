package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.testsupport.TestDatabases;

/**
 * The durable tasks statements on a real MariaDB server (skipped, saying why, where none can be had):
 * the claim as a locking select and an update, the upsert as ON DUPLICATE KEY UPDATE.
 */
class DurableTaskStoreMariaDbTest extends DurableTaskStoreContract {

    @Override
    TestDatabases.Kind kind() {
        return TestDatabases.Kind.MARIADB;
    }
}
