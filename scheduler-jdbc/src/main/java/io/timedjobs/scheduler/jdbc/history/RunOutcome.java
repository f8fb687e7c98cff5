package io.timedjobs.scheduler.jdbc.history;

/** Immutable. How a run in the {@link RunHistory} ended, or that its fire did not run. */
public enum RunOutcome {
    /** The job's run, or the durable task's attempt, returned normally. */
    SUCCEEDED,
    /** It threw, and nothing retries it: a clustered run, or a durable task's last attempt. */
    FAILED,
    /** A durable task's attempt threw and is retried after its backoff. */
    RETRIED,
    /**
     * A clustered run whose instance stopped before it wrote its end (killed, frozen or cut off from
     * the database): it began, and how it ended is unknown. Written by the instance that found it
     * ({@link AbandonedRuns}), never by an instance of schema version 5, which cannot read it.
     */
    ABANDONED,
    /**
     * No run: the job's nominal fires the record covers were skipped, for its {@link
     * RunRecord#skipReason()}.
     */
    SKIPPED;

    /** Whether the run threw (and so has an error summary). */
    public boolean failed() {
        return this == FAILED || this == RETRIED;
    }
}
