package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import java.time.Duration;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * Spring lifecycle bean; called by the context's lifecycle processor. Starts the durable task engine
 * after the instance's heartbeat and stops it before: at a graceful shutdown, claimed tasks that have
 * not started go back to the database at once, and running ones get the await-termination period.
 * The DataSource, a plain bean, outlives both.
 */
public final class DurableTaskLifecycle implements SmartLifecycle {

    private final DurableTaskEngine engine;
    private final Duration awaitTermination;

    public DurableTaskLifecycle(DurableTaskEngine engine, Duration awaitTermination) {
        this.engine = Objects.requireNonNull(engine, "engine");
        this.awaitTermination = Objects.requireNonNull(
                awaitTermination,
                "awaitTermination: the longest wait for running tasks at stop (Duration.ZERO for none)");
    }

    @Override
    public void start() {
        engine.start();
    }

    @Override
    public void stop() {
        engine.stop(awaitTermination);
    }

    @Override
    public boolean isRunning() {
        return engine.isRunning();
    }

    /** The longest wait for running tasks at stop. */
    Duration awaitTermination() {
        return awaitTermination;
    }

    /** After the heartbeat on start, before it on stop. */
    @Override
    public int getPhase() {
        return ClusterHeartbeat.PHASE + 1;
    }
}
