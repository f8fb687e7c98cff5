package io.timedjobs.scheduler.jdbc.history;

/**
 * Immutable. Why a nominal fire of a clustered job did not run: the reason of a {@link
 * RunOutcome#SKIPPED} record in the {@link RunHistory}. Each reason is recorded once per fire across
 * the cluster, by the instance that noticed it; docs/run-history.md says who and when.
 *
 * <p>Not the meters' reasons ({@code ClusterJobStats.SkipReason}), which count what each instance
 * saw, such as a fire lost to another instance: a fire another instance ran is no skip here.
 */
public enum SkipReason {
    /** A user paused the job: nobody records its fires until it is resumed. */
    PAUSED,
    /** The database could not be reached when the fire was due, by any instance that tried it. */
    DATABASE_DOWN,
    /** The job's previous run still held its run lease (runs never overlap), so this fire did not run. */
    STILL_RUNNING,
    /** Another definition of the job is current (a later deploy changed it); the instances of this one stand by. */
    SUPERSEDED,
    /** The instance that would have run the fire was stopping, and no other instance ran it. */
    STOPPING,
    /**
     * Every instance was down when the fire was due, and the job's catch-up policy dropped it (no
     * policy, or {@code SKIP}; with {@code ONCE}, all but the one run). A missed fire that ran later
     * is a run with {@link RunRecord#catchUp()} set, not a skip.
     */
    MISSED;

    /**
     * Whether the instance that skips a fire for this reason first holds the fire's record in the
     * fires table (it claimed the fire, or recorded it and found the lease held), so that no other
     * fate can be written for it: then a skip may extend the job's latest record without the job's
     * lock. The other reasons are written only for fires past the horizon, which no instance may
     * record any more, and each under the lock (see {@code SkipRecords}).
     */
    boolean claimed() {
        return this == PAUSED || this == STILL_RUNNING || this == STOPPING;
    }

    /** The longest name, which bounds the column: {@value}. */
    static final int MAX_LENGTH = 16;
}
