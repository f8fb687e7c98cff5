package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import io.timedjobs.scheduler.RunGate;
import io.timedjobs.scheduler.TaskErrorHandler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: any thread may wait on it or cancel it, one worker at a time runs it. A one-shot
 * task that is its own future: the object the queue orders, the worker runs and the
 * caller waits on are one and the same, so scheduling allocates nothing else.
 *
 * <p>Subclasses add repetition ({@link RepeatingTask}: {@link PeriodicTask}, {@link RecurringTask})
 * and failure reporting for fire-and-forget submissions ({@link ExecutedTask}); {@link
 * CallableTask} and {@link RunnableWithResult} compute a result. The threads waiting in {@code get}
 * are kept by {@link TaskWaiters}.
 *
 * @param <V> the result type
 */
public class ScheduledTask<V> implements RunnableScheduledFuture<V> {

    /*
     * Life cycle, a small state machine in the style of FutureTask:
     *
     *   NEW -> RUNNING -> COMPLETING -> NORMAL | EXCEPTIONAL     (the work ran)
     *   NEW | RUNNING -> CANCELLED                               (cancel(false))
     *   NEW | RUNNING -> INTERRUPTING -> INTERRUPTED             (cancel(true))
     *   RUNNING -> NEW                                           (a repeating task, between runs)
     *
     * RUNNING is NEW with a thread running the work: moving NEW to RUNNING by CAS is what lets one
     * thread, and only one, run it. Both count as pending. Whoever moves the state out of them
     * owns the completion: it stores the outcome in place of the work, and wakes the waiters.
     *
     * Size matters here, since a million pending timeouts are a million of these, 40 bytes each
     * with compressed references: the work and the outcome share one field; the sequence is an int
     * compared with wrap-around; the pool and the waiters share one field (the waiters' stack ends
     * in the pool); there is no runner field (a cancel(true) asks the pool which worker runs the
     * task); the queue's staging needs no link; and a Callable or a Runnable with a preset result is
     * a subclass rather than a field on every task.
     */
    static final int NEW = 0;
    static final int COMPLETING = 1;
    static final int NORMAL = 2;
    static final int EXCEPTIONAL = 3;
    static final int CANCELLED = 4;
    static final int INTERRUPTING = 5;
    static final int INTERRUPTED = 6;
    static final int RUNNING = 8;

    /**
     * While NEW: the Runnable or Callable. Once done: the result or the Throwable; null after a
     * cancel. So a finished or cancelled task keeps its work alive no longer.
     */
    @Nullable
    Object payload;

    private volatile int state;

    /**
     * The pool; or, while threads are blocked in {@code get}, a Treiber stack of {@link WaitNode}s
     * whose last node's {@code next} is the pool. Null only for the queue's own marker task. The
     * stack's operations live in {@link TaskWaiters}, which alone changes this field once the task
     * is made.
     */
    volatile @Nullable Object poolOrWaiters;

    /**
     * When the task is due, in ticker nanoseconds. Written before the task enters the queue (by the
     * submitting thread, or by the worker that re-queues a repeating task) and read under the queue
     * lock; other readers ({@link #getDelay}) may see a slightly stale value. It must not change
     * while the task is queued: the heap's order and the task's wheel bucket are derived from it.
     */
    long time;

    /**
     * Breaks ties between equal times: first in, first out. Assigned under the queue lock; compared
     * by difference, so it may wrap around (only tasks due at the very same nanosecond with two
     * billion others entering in between could be misordered).
     */
    int sequence;

    /**
     * Where the task is queued: its index in the heap (0 or more); or, encoded below -1, its index
     * in its wheel bucket, its position in the queue's sorted run, or its position on a producer's
     * stripe (the encodings are named in {@link QueuePosition}); or -1 when it is in
     * none of them (taken, or never queued). Written under the queue lock, except by the producer
     * that stages the task, before anyone else can see it.
     */
    int heapIndex = -1;

    /** A task whose work is a Runnable, or (for subclasses) a Callable; its result is null. */
    ScheduledTask(@Nullable WorkerPool pool, Object work, long time) {
        this.poolOrWaiters = pool;
        this.payload = work;
        this.time = time;
    }

    /** Returns the pool the task belongs to: at the end of the waiters' stack, if any. */
    final WorkerPool pool() {
        return (WorkerPool) TaskWaiters.poolBelow(poolOrWaiters);
    }

    /** Returns the state; for {@link TaskWaiters}. */
    final int state() {
        return state;
    }

    // ---------------------------------------------------------------------------------------------
    // Execution, called by the worker

    /**
     * Runs the task once on the current thread, through the gate if there is one.
     *
     * @param gate the pool's gate, or null for none: passed in, rather than read from the pool, so
     *     that a pool without one pays a null check and nothing more
     * @return how the execution ended, or {@code null} when nothing ran (the task was cancelled,
     *     the gate skipped it, or it was not yet due by the wall clock and went back to the queue)
     */
    @Nullable
    Outcome execute(@Nullable RunGate gate) {
        if (!claim()) {
            return null;
        }
        Outcome result;
        try {
            Object w = payload;
            if (w == null) {
                return null;
            }
            V value;
            try {
                if (gate == null) {
                    value = invoke(w);
                } else if (gate.enter(w)) {
                    value = invokeGated(gate, w);
                } else {
                    complete(NORMAL, null); // skipped: completes as if it ran and returned null
                    return null;
                }
            } catch (Throwable failure) {
                failed(failure);
                return Outcome.FAILED;
            }
            complete(NORMAL, value);
            result = Outcome.SUCCEEDED;
        } finally {
            release();
        }
        return result;
    }

    /** Runs the work, then leaves the gate; a failure of the gate joins the work's own. */
    private @Nullable V invokeGated(RunGate gate, Object w) throws Exception {
        V value;
        try {
            value = invoke(w);
        } catch (Throwable failure) {
            exitAfterFailure(gate, w, failure);
            throw failure;
        }
        gate.exit(w);
        return value;
    }

    /** Leaves the gate after the work threw; a failure of the gate joins the work's own. */
    static void exitAfterFailure(RunGate gate, Object w, Throwable failure) {
        try {
            gate.exit(w);
        } catch (Throwable fromGate) {
            failure.addSuppressed(fromGate);
        }
    }

    /**
     * Completes the future after the work threw. With a one-shot error handler, the handler sees
     * the failure first, on this thread: if it returns, the future completes normally with null;
     * if it throws, with what it threw. Without one, the future holds the failure, as the JDK's
     * does. Subclasses whose future nobody holds override this.
     */
    void failed(Throwable failure) {
        TaskErrorHandler handler = pool().oneShotErrorHandler;
        if (handler == null) {
            complete(EXCEPTIONAL, failure);
            return;
        }
        try {
            handler.handleError(failure);
        } catch (Throwable fromHandler) {
            complete(EXCEPTIONAL, fromHandler);
            return;
        }
        complete(NORMAL, null);
    }

    /** Runs the task once through the pool's gate, for a thread outside the pool. */
    @Override
    public final void run() {
        execute(pool().runGate);
    }

    /** Runs the work; subclasses that compute a result override this. */
    @Nullable
    V invoke(Object w) throws Exception {
        ((Runnable) w).run();
        return null;
    }

    /** Moves NEW to RUNNING: true for the one thread that may run the work now. */
    final boolean claim() {
        return state == NEW && STATE.compareAndSet(this, NEW, RUNNING);
    }

    /**
     * Ends a run: a task still RUNNING (a repeating one, between its runs) goes back to NEW. A
     * cancel(true) may be about to interrupt this thread: wait until it has, so that the interrupt
     * cannot hit whatever the thread runs next (the worker clears it before the next task).
     */
    final void release() {
        if (state == RUNNING) {
            STATE.compareAndSet(this, RUNNING, NEW);
        }
        if (state == INTERRUPTING) {
            TaskWaiters.awaitInterrupt(this);
        }
    }

    /** Whether the task is neither completed nor cancelled; it may be running. */
    final boolean isNew() {
        int s = state;
        return s == NEW || s == RUNNING;
    }

    /** Completes the future with a value ({@code NORMAL}) or a Throwable ({@code EXCEPTIONAL}). */
    final boolean complete(int finalState, @Nullable Object value) {
        for (int s; (s = state) == NEW || s == RUNNING; ) {
            if (STATE.compareAndSet(this, s, COMPLETING)) {
                payload = value;
                STATE.setRelease(this, finalState);
                TaskWaiters.finishCompletion(this);
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    // Future

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        int s;
        do {
            s = state;
            if (s != NEW && s != RUNNING) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, mayInterruptIfRunning ? INTERRUPTING : CANCELLED));
        WorkerPool pool = pool();
        try {
            if (mayInterruptIfRunning) {
                Thread runner = null;
                try {
                    if (s == RUNNING) {
                        runner = pool.interruptWorkerRunning(this);
                    }
                } finally {
                    STATE.setRelease(this, INTERRUPTED);
                    if (runner != null) {
                        LockSupport.unpark(runner); // it may wait in release() for this
                    }
                }
            }
        } finally {
            payload = null;
            TaskWaiters.finishCompletion(this);
            pool.onCancel(this);
        }
        return true;
    }

    @Override
    public boolean isCancelled() {
        int s = state;
        return s >= CANCELLED && s <= INTERRUPTED;
    }

    @Override
    public boolean isDone() {
        return !isNew();
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        int s = state;
        if (s <= COMPLETING || s == RUNNING) {
            s = TaskWaiters.awaitDone(this, false, 0L);
        }
        return report(s);
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (unit == null) {
            throw new NullPointerException("unit");
        }
        int s = state;
        if ((s <= COMPLETING || s == RUNNING)
                && ((s = TaskWaiters.awaitDone(this, true, unit.toNanos(timeout))) <= COMPLETING || s == RUNNING)) {
            throw new TimeoutException("Task not completed within " + timeout + " " + unit);
        }
        return report(s);
    }

    @SuppressWarnings("unchecked")
    private V report(int s) throws ExecutionException {
        Object x = payload;
        if (s == NORMAL) {
            return (V) x;
        }
        if (s >= CANCELLED) {
            throw new CancellationException("Task was cancelled");
        }
        throw new ExecutionException((Throwable) x);
    }

    // ---------------------------------------------------------------------------------------------
    // Delayed

    @Override
    public boolean isPeriodic() {
        return false;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(time - pool().ticker.read(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof ScheduledTask<?> task) {
            return isBefore(this, task) ? -1 : 1;
        }
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    /**
     * The queue order: earlier time first, then lower sequence. Times are compared by their
     * difference, which stays correct when the ticker wraps around.
     */
    static boolean isBefore(ScheduledTask<?> a, ScheduledTask<?> b) {
        long diff = a.time - b.time;
        return diff < 0 || (diff == 0 && a.sequence - b.sequence < 0);
    }

    @Override
    public String toString() {
        String status = switch (state) {
            case NEW -> "pending";
            case RUNNING -> "running";
            case NORMAL -> "completed normally";
            case EXCEPTIONAL -> "completed exceptionally";
            case COMPLETING -> "completing";
            default -> "cancelled";
        };
        Object w = isNew() ? payload : null;
        return getClass().getSimpleName() + "[" + status + (w != null ? ", task = " + w : "") + "]";
    }

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(ScheduledTask.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
