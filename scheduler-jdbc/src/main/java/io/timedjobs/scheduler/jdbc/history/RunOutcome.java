package io.timedjobs.scheduler.jdbc.history;

/** Immutable. How a run in the {@link RunHistory} ended. */
public enum RunOutcome {
    /** The job's run, or the durable task's attempt, returned normally. */
    SUCCEEDED,
    /** It threw, and nothing retries it: a clustered run, or a durable task's last attempt. */
    FAILED,
    /** A durable task's attempt threw and is retried after its backoff. */
    RETRIED;

    /** Whether the run threw (and so has an error summary). */
    public boolean failed() {
        return this != SUCCEEDED;
    }
}
