package io.timedjobs.scheduler.jdbc.durable;

import java.util.Objects;

/**
 * Thread-safe; for tests of durable task handlers, in the application's tests. Runs an engine's
 * tasks on the calling thread, now, whatever their due time: a test drives its handlers without
 * waiting for the clock or a poll. Each completion or failure is written before the call returns.
 */
public final class DurableTaskTesting {

    private DurableTaskTesting() {}

    /**
     * Claims every task due now on the database's clock and runs each on the calling thread, together
     * with the tasks already queued on {@code engine} that are due. Returns how many ran.
     */
    public static int runDueNow(DurableTaskEngine engine) {
        Objects.requireNonNull(engine, "engine");
        return engine.handRun().runDueNow(engine.owner());
    }

    /**
     * Runs one task now on the calling thread, whatever its due time: moves it to now, as {@link
     * DurableTasks#reschedule} does, claims it on {@code engine} and runs it. Returns whether it
     * existed and its handler ran.
     */
    public static boolean runNow(DurableTaskEngine engine, String handler, String key) {
        Objects.requireNonNull(engine, "engine");
        return engine.handRun().runNow(engine.owner(), handler, key);
    }
}
