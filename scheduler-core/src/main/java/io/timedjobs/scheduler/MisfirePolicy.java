package io.timedjobs.scheduler;

/**
 * What a fixed-rate task of a running scheduler does when it falls behind its own rhythm, for
 * example after a long run or a stalled JVM. The default is {@link #CATCH_UP}, the JDK's behaviour
 * ({@code LeaderFollowerScheduler.Builder.misfirePolicy}, the key {@code timed-jobs.misfire-policy}).
 *
 * <p><b>NOTE:</b> this is not the catch-up of scheduler-jdbc ({@code @CatchUp}, {@code
 * CatchUpPolicy}), whose default is to skip. That one decides what runs of the fires that fell
 * while no instance ran a clustered job or a durable task at all (every instance down, or the
 * database away); this one, the late executions of a task this process keeps scheduled. Clustered
 * jobs are scheduled by trigger, so this policy never applies to them.
 */
public enum MisfirePolicy {

    /**
     * Runs every missed execution, back to back, until the task is on schedule again. This is what
     * {@link java.util.concurrent.ScheduledThreadPoolExecutor} does.
     */
    CATCH_UP,

    /**
     * Drops the missed executions and moves to the next slot of the original rhythm that is not in
     * the past; the rhythm itself (start time plus a multiple of the period) is kept.
     */
    SKIP
}
