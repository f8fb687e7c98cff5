package io.timedjobs.scheduler.jdbc.durable;

/** Immutable; any thread. Where a durable task is in its life, as stored in its row. */
public enum DurableTaskState {
    /** Waiting in the database for its due time and a claim. */
    PENDING,
    /** Claimed by one instance, whose in-memory engine will start it at its due time. */
    CLAIMED,
    /** Started by the instance that claimed it; the row goes when the run completes. */
    RUNNING,
    /** Out of attempts; kept with its last error until it is rescheduled or cancelled. */
    FAILED
}
