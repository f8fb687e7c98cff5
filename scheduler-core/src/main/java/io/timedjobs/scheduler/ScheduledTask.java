package io.timedjobs.scheduler;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.time.Clock;
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
 * CallableTask} and {@link RunnableWithResult} compute a result. The state and the threads waiting
 * in {@code get} are kept by its base class, {@link TaskFuture}; what it needs from the pool that
 * made it, by its {@link Owner}, so that it knows the pool only through that narrow view.
 *
 * @param <V> the result type
 */
class ScheduledTask<V> extends TaskFuture implements RunnableScheduledFuture<V> {

    /*
     * Life cycle, a small state machine in the style of FutureTask (the states are TaskFuture's):
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
     * compared with wrap-around; the owner and the waiters share one field (the waiters' stack ends
     * in the owner); there is no runner field (a cancel(true) asks the pool which worker runs the
     * task); the queue's staging needs no link; and a Callable or a Runnable with a preset result is
     * a subclass rather than a field on every task.
     */

    /**
     * The longest delay kept as is: about 146 years. Longer ones are cut to it, so that the
     * difference of any two due times still fits in a long and the heap order stays right.
     */
    static final long MAX_DELAY = Long.MAX_VALUE >>> 1;

    /**
     * While NEW: the Runnable or Callable. Once done: the result or the Throwable; null after a
     * cancel. So a finished or cancelled task keeps its work alive no longer.
     */
    @Nullable
    Object payload;

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
     * Where the task is queued, in one of the encodings of {@link QueuePosition}: its index in the
     * heap, in its wheel bucket, its position in the sorted run, its slot in a ready batch, or its
     * position on a producer's stripe; or {@link QueuePosition#NONE}. Each encoding is written by
     * the one structure that owns it (see QueuePosition), under the queue lock, except by the
     * producer that stages the task, before anyone else can see it.
     */
    int queuePosition = QueuePosition.NONE;

    /** A task whose work is a Runnable, or (for subclasses) a Callable; its result is null. */
    ScheduledTask(@Nullable Owner owner, Object work, long time) {
        super(owner);
        this.payload = work;
        this.time = time;
    }

    /** Returns the owner of the task: at the end of the waiters' stack, if any. */
    final Owner pool() {
        return (Owner) owner();
    }

    /** Returns {@code now + delay}, with a negative delay meaning "now" and a huge one capped. */
    static long triggerTime(long now, long delayNanos) {
        return now + (delayNanos <= 0L ? 0L : Math.min(delayNanos, MAX_DELAY));
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
            awaitInterrupt();
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
                finishCompletion();
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    // Future

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (mayInterruptIfRunning) {
            return cancelInterrupting();
        }
        // cancel(false), the common case (every timeout cancelled): kept small, so that it is
        // compiled early and inlined into its callers whole.
        int s;
        do {
            s = state;
            if (s != NEW && s != RUNNING) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, CANCELLED));
        payload = null;
        finishCompletion();
        pool().onCancel(this);
        return true;
    }

    /** cancel(true): interrupts the worker running the task, if one is. */
    private boolean cancelInterrupting() {
        int s;
        do {
            s = state;
            if (s != NEW && s != RUNNING) {
                return false;
            }
        } while (!STATE.compareAndSet(this, s, INTERRUPTING));
        Owner pool = pool();
        try {
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
        } finally {
            payload = null;
            finishCompletion();
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
            s = awaitDone(false, 0L);
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
                && ((s = awaitDone(true, unit.toNanos(timeout))) <= COMPLETING || s == RUNNING)) {
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

    /**
     * Used by its tasks, on any thread: the pool as a task sees it, the settings its executions
     * read and the calls it makes back. The pool extends it, so that a task reaches the pool's
     * settings with a field read and never names the pool's class: references run from the pool
     * to its tasks, not back.
     */
    abstract static class Owner {
        final Ticker ticker;
        final Clock clock;
        final MisfirePolicy misfirePolicy;
        final TaskErrorHandler errorHandler;

        /** Sees the failures of one-shot tasks before their futures do; null to leave them to the futures. */
        final @Nullable TaskErrorHandler oneShotErrorHandler;

        /** Called around every execution, or null; read here for a task run outside the pool. */
        final @Nullable RunGate runGate;

        Owner(
                Ticker ticker,
                Clock clock,
                MisfirePolicy misfirePolicy,
                TaskErrorHandler errorHandler,
                @Nullable TaskErrorHandler oneShotErrorHandler,
                @Nullable RunGate runGate) {
            this.ticker = ticker;
            this.clock = clock;
            this.misfirePolicy = misfirePolicy;
            this.errorHandler = errorHandler;
            this.oneShotErrorHandler = oneShotErrorHandler;
            this.runGate = runGate;
        }

        /** Takes a cancelled task out of the queue, wherever it is on its way. */
        abstract void onCancel(ScheduledTask<?> task);

        /** Puts a repeating task back for its next execution; cancels it if the pool will not run it. */
        abstract void requeue(ScheduledTask<?> task);

        /** Interrupts the worker running a task, for its cancel(true); returns it, or null if none. */
        abstract @Nullable Thread interruptWorkerRunning(ScheduledTask<?> task);

        /**
         * Reports a repeating task's failure to the error handler.
         *
         * @return null if the task keeps its schedule, else the Throwable to complete its future with
         */
        abstract @Nullable Throwable handleRepeatingFailure(Throwable failure);
    }
}
