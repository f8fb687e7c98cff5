package io.timedjobs.scheduler;

/**
 * What a fixed-rate task does when it falls behind its schedule, for example after a long run or a
 * stalled JVM.
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
