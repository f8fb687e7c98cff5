package io.timedjobs.scheduler.jdbc.durable;

import java.util.concurrent.atomic.LongAdder;

/**
 * Thread-safe; counted by the runner and the outcome writers on the engine's workers, read by any
 * thread through the engine. What became of the executions of one engine.
 */
final class RunCounts {

    private final LongAdder completed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder fenced = new LongAdder();

    void completed() {
        completed.increment();
    }

    void failed() {
        failed.increment();
    }

    void fenced() {
        fenced.increment();
    }

    /** Executions whose handler returned. */
    long completedCount() {
        return completed.sum();
    }

    /** Executions whose handler threw. */
    long failedCount() {
        return failed.sum();
    }

    /** Starts and outcomes refused by their fence. */
    long fencedCount() {
        return fenced.sum();
    }
}
