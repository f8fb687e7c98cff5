package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.testsupport.TestDatabases;

/** The durable tasks statements on H2. */
class DurableTaskStoreH2Test extends DurableTaskStoreContract {

    @Override
    TestDatabases.Kind kind() {
        return TestDatabases.Kind.H2;
    }
}
