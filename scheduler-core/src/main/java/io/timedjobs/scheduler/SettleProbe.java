package io.timedjobs.scheduler;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Tells whether a scheduler driven by a {@link ManualTicker} has finished everything that came due:
 * what {@link ManualTicker#advance(java.time.Duration)} waits for when asked to. Stateless; called
 * by the thread that advances the ticker, never by a worker.
 *
 * <p>A task is always in one of three places: waiting in the queue, on its way from the queue to a
 * worker, or running. The queue is checked exactly, under its lock, due time included. A task on
 * its way shows as a worker thread that is neither parked nor counted active; a running one as the
 * active count. An execution that ends during the check may put its next run (or a task it
 * scheduled) in the queue after the queue was checked: the completed count read before and after
 * catches that, and the check is repeated.
 */
final class SettleProbe {

    private SettleProbe() {}

    /** Whether nothing runs, nothing is on its way to a worker, and nothing waiting is due. */
    static boolean isSettled(LeaderFollowerScheduler scheduler) {
        if (scheduler.isTerminated()) {
            return true;
        }
        WorkerPool pool = scheduler.pool();
        long completed = pool.completedCount();
        if (pool.activeCount() > 0 || pool.hasDueTask()) {
            return false;
        }
        for (Thread worker : pool.workerThreads()) {
            Thread.State state = worker.getState();
            if (state != Thread.State.WAITING
                    && state != Thread.State.TIMED_WAITING
                    && state != Thread.State.TERMINATED) {
                return false;
            }
        }
        return pool.activeCount() == 0 && pool.completedCount() == completed;
    }

    /** Names what keeps the scheduler busy: the code its workers run, and due tasks waiting. */
    static String describeBusy(LeaderFollowerScheduler scheduler) {
        WorkerPool pool = scheduler.pool();
        List<String> running = new ArrayList<>();
        for (Thread worker : pool.workerThreads()) {
            StackTraceElement frame = firstApplicationFrame(worker.getStackTrace());
            if (frame != null) {
                running.add(worker.getName() + " runs " + frame);
            }
        }
        StringBuilder description = new StringBuilder(scheduler.toString()).append(": ");
        if (!running.isEmpty()) {
            description.append("task(s) still running: ").append(String.join("; ", running));
        } else {
            description.append(pool.activeCount()).append(" task(s) still running");
        }
        if (pool.hasDueTask()) {
            description.append("; tasks due by now still waiting for a worker");
        }
        return description.toString();
    }

    /** Whether the class is the engine's own: a class of this package, not of a package below it. */
    private static boolean isEngine(String type) {
        String engine = SettleProbe.class.getPackageName() + '.';
        return type.startsWith(engine) && type.indexOf('.', engine.length()) < 0;
    }

    /** The first frame of code outside the JDK, Spring and this scheduler: the task's own. */
    private static @Nullable StackTraceElement firstApplicationFrame(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            if (!(type.startsWith("java.")
                    || type.startsWith("javax.")
                    || type.startsWith("jdk.")
                    || type.startsWith("sun.")
                    || type.startsWith("org.springframework.")
                    || isEngine(type)
                    || type.startsWith("io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler")
                    || type.startsWith("io.timedjobs.scheduler.spring.PauseGate"))) {
                return frame;
            }
        }
        return null;
    }
}
