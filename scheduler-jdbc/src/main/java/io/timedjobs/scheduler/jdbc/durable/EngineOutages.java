package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.OutageLog;
import java.util.function.BooleanSupplier;

/**
 * Thread-safe; shared by the parts of one engine that call the database. Where their failures are
 * logged, and whether the database is known to be away (the engine's calls or the heartbeat's
 * failed last), which each start and outcome reads.
 *
 * @param log the engine's outages, logged once each
 * @param owner the instance's name, to say whose durable tasks failed
 * @param away whether the database is known to be away now
 */
record EngineOutages(OutageLog log, String owner, BooleanSupplier away) {

    /** Of an engine whose heartbeat logs its own outages in {@code heartbeat}. */
    static EngineOutages of(OutageLog engine, OutageLog heartbeat, String owner) {
        return new EngineOutages(engine, owner, () -> engine.inOutage() || heartbeat.inOutage());
    }

    void failed(RuntimeException failure) {
        log.failed("durable tasks of " + owner, failure);
    }

    boolean databaseAway() {
        return away.getAsBoolean();
    }
}
