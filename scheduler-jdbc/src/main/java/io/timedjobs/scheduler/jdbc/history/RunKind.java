package io.timedjobs.scheduler.jdbc.history;

/** Immutable. What a {@link RunRecord} is the run of. */
public enum RunKind {
    /** A clustered {@code @Scheduled} job; the record's name is the job's. */
    JOB,
    /** A durable task; the record's name is its handler's, and it has a task key. */
    TASK
}
