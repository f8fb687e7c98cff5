package io.timedjobs.scheduler;

/**
 * Called on the thread that runs a task, around each of its executions; must be thread-safe, for
 * every worker calls it at once. Set one with {@link LeaderFollowerScheduler.Builder#runGate}: it
 * can hold executions while the application is paused, count running tasks, or skip executions of
 * a job that is switched off, without wrapping each task in an object of its own.
 *
 * <p>For each execution the scheduler calls {@link #enter} first. If it returns true, the work
 * runs and {@link #exit} follows, whether the work returned or threw. If it returns false, the
 * work does not run this time and {@code exit} is not called: a one-shot task then completes
 * normally with a {@code null} result, and a repeating task keeps its schedule as if it had run.
 *
 * <p>A skipped execution is not an execution: {@link LeaderFollowerScheduler#getCompletedTaskCount}
 * does not count it and the {@link ExecutionListener} does not see it. An execution that entered is
 * counted and reported as usual; its reported duration includes the time spent in {@code enter}.
 *
 * <p><b>NOTE:</b> a gate that throws fails the execution, as if the work had thrown: from {@code
 * enter}, the work does not run and {@code exit} is not called; from {@code exit}, what it threw
 * is the execution's failure, or is added as suppressed to the work's own failure. The failure
 * then goes where the task's failures go (its future, the error handlers).
 *
 * <p>A thread blocked in {@code enter} holds its task as running: a {@code cancel(true)}
 * interrupts it, and {@code shutdownNow} interrupts it too. A gate that blocks should therefore
 * give up on an interrupt (returning false, or throwing) rather than swallow it.
 */
public interface RunGate {

    /**
     * Called on the running thread before an execution; may block.
     *
     * @param work the {@code Runnable} or {@code Callable} as it was submitted, the same object the
     *     {@link ExecutionListener} is given
     * @return true to run the work now, false to skip this execution
     */
    boolean enter(Object work);

    /**
     * Called on the running thread after an execution that {@linkplain #enter entered}, also when
     * the work threw.
     *
     * @param work the same object {@link #enter} was given
     */
    void exit(Object work);
}
