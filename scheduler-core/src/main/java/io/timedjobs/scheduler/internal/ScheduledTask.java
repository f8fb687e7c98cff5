package io.timedjobs.scheduler.internal;

import io.timedjobs.scheduler.ExecutionListener.Outcome;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A one-shot task that is its own future: the object the queue orders, the worker runs and the
 * caller waits on are one and the same, so scheduling allocates nothing else.
 *
 * <p>Subclasses add repetition ({@link RepeatingTask}: {@link PeriodicTask}, {@link RecurringTask})
 * and failure reporting for fire-and-forget submissions ({@link ExecutedTask}).
 *
 * @param <V> the result type
 */
public class ScheduledTask<V> implements RunnableScheduledFuture<V> {

    /*
     * Life cycle, a small state machine in the style of FutureTask:
     *
     *   NEW -> COMPLETING -> NORMAL | EXCEPTIONAL     (the work ran)
     *   NEW -> CANCELLED                              (cancel(false))
     *   NEW -> INTERRUPTING -> INTERRUPTED            (cancel(true))
     *
     * A task stays NEW while it waits in the queue and while it runs; a repeating task returns to
     * the queue still NEW. Whoever moves the state out of NEW owns the completion: it stores the
     * outcome in place of the work, and wakes the waiters.
     *
     * Size matters here, since a million pending timeouts are a million of these: the work and the
     * outcome share one field, the sequence is an int compared with wrap-around, and a Callable or a
     * Runnable with a preset result is a subclass rather than a field on every task.
     */
    static final int NEW = 0;
    static final int COMPLETING = 1;
    static final int NORMAL = 2;
    static final int EXCEPTIONAL = 3;
    static final int CANCELLED = 4;
    static final int INTERRUPTING = 5;
    static final int INTERRUPTED = 6;

    final WorkerPool pool;

    /**
     * While NEW: the Runnable or Callable. Once done: the result or the Throwable; null after a
     * cancel. So a finished or cancelled task keeps its work alive no longer.
     */
    @Nullable
    Object payload;

    private volatile int state;

    /** The thread running the work, set by CAS from {@code null} so that only one thread runs it. */
    private volatile @Nullable Thread runner;

    /** Threads blocked in {@code get}, a Treiber stack. */
    private volatile @Nullable WaitNode waiters;

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
     * Where the task is queued: its index in the heap (0 or more), or {@code -2 - i} for index
     * {@code i} in its wheel bucket, or -1 when it is in neither (staged, taken, or never queued).
     * Guarded by the queue lock.
     */
    int heapIndex = -1;

    /** The next older task on the queue's staging stack; null once the task reached the heap. */
    @Nullable
    ScheduledTask<?> nextStaged;

    /** A task whose work is a Runnable, or (for subclasses) a Callable; its result is null. */
    ScheduledTask(WorkerPool pool, Object work, long time) {
        this.pool = pool;
        this.payload = work;
        this.time = time;
    }

    // ---------------------------------------------------------------------------------------------
    // Execution, called by the worker

    /**
     * Runs the task once on the current thread.
     *
     * @return how the execution ended, or {@code null} when nothing ran (the task was cancelled, or
     *     it was not yet due by the wall clock and went back to the queue)
     */
    @Nullable
    Outcome execute() {
        if (!claimRunner()) {
            return null;
        }
        Outcome result;
        try {
            Object w = payload;
            if (w == null || state != NEW) {
                return null;
            }
            try {
                V value = invoke(w);
                complete(NORMAL, value);
                result = Outcome.SUCCEEDED;
            } catch (Throwable failure) {
                complete(EXCEPTIONAL, failure);
                onFailure(failure);
                result = Outcome.FAILED;
            }
        } finally {
            releaseRunner();
        }
        return result;
    }

    /** Hook for failures that no future reports; the default leaves them in the future. */
    void onFailure(Throwable failure) {}

    @Override
    public final void run() {
        execute();
    }

    /** Runs the work; subclasses that compute a result override this. */
    @Nullable
    V invoke(Object w) throws Exception {
        ((Runnable) w).run();
        return null;
    }

    final boolean claimRunner() {
        return state == NEW && RUNNER.compareAndSet(this, null, Thread.currentThread());
    }

    final void releaseRunner() {
        runner = null;
        // A cancel(true) may be about to interrupt us: wait until it has, so that the interrupt
        // cannot hit whatever this thread runs next (the worker clears it before the next task).
        while (state == INTERRUPTING) {
            Thread.onSpinWait();
        }
    }

    final boolean isNew() {
        return state == NEW;
    }

    /** Completes the future with a value ({@code NORMAL}) or a Throwable ({@code EXCEPTIONAL}). */
    final boolean complete(int finalState, @Nullable Object value) {
        if (STATE.compareAndSet(this, NEW, COMPLETING)) {
            payload = value;
            STATE.setRelease(this, finalState);
            finishCompletion();
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------------------------------------
    // Future

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!STATE.compareAndSet(this, NEW, mayInterruptIfRunning ? INTERRUPTING : CANCELLED)) {
            return false;
        }
        try {
            if (mayInterruptIfRunning) {
                try {
                    Thread t = runner;
                    if (t != null) {
                        t.interrupt();
                    }
                } finally {
                    STATE.setRelease(this, INTERRUPTED);
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
        return state >= CANCELLED;
    }

    @Override
    public boolean isDone() {
        return state != NEW;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        int s = state;
        if (s <= COMPLETING) {
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
        if (s <= COMPLETING && (s = awaitDone(true, unit.toNanos(timeout))) <= COMPLETING) {
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

    private int awaitDone(boolean timed, long nanos) throws InterruptedException {
        final long deadline = timed ? System.nanoTime() + nanos : 0L;
        WaitNode node = null;
        boolean queued = false;
        for (; ; ) {
            int s = state;
            if (s > COMPLETING) {
                if (node != null) {
                    node.thread = null;
                }
                return s;
            } else if (s == COMPLETING) {
                Thread.yield(); // the outcome is being written this very moment
            } else if (Thread.interrupted()) {
                removeWaiter(node);
                throw new InterruptedException();
            } else if (node == null) {
                if (timed && nanos <= 0L) {
                    return s;
                }
                node = new WaitNode();
            } else if (!queued) {
                WaitNode head = waiters;
                node.next = head;
                queued = WAITERS.weakCompareAndSet(this, head, node);
            } else if (timed) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0L) {
                    removeWaiter(node);
                    return state;
                }
                LockSupport.parkNanos(this, remaining);
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** Unlinks a waiter that timed out or was interrupted, and any other dead node on the way. */
    private void removeWaiter(@Nullable WaitNode node) {
        if (node == null) {
            return;
        }
        node.thread = null;
        restart:
        for (; ; ) {
            WaitNode pred = null;
            for (WaitNode q = waiters; q != null; ) {
                WaitNode next = q.next;
                if (q.thread != null) {
                    pred = q;
                } else if (pred != null) {
                    pred.next = next;
                    if (pred.thread == null) {
                        continue restart; // pred died meanwhile: its own unlinking may be lost
                    }
                } else if (!WAITERS.compareAndSet(this, q, next)) {
                    continue restart;
                }
                q = next;
            }
            return;
        }
    }

    private void finishCompletion() {
        for (WaitNode q; (q = waiters) != null; ) {
            if (WAITERS.weakCompareAndSet(this, q, null)) {
                while (q != null) {
                    Thread t = q.thread;
                    if (t != null) {
                        q.thread = null;
                        LockSupport.unpark(t);
                    }
                    WaitNode next = q.next;
                    q.next = null;
                    q = next;
                }
                break;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Delayed

    @Override
    public boolean isPeriodic() {
        return false;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(time - pool.ticker.read(), TimeUnit.NANOSECONDS);
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
            case NORMAL -> "completed normally";
            case EXCEPTIONAL -> "completed exceptionally";
            case COMPLETING -> "completing";
            default -> "cancelled";
        };
        Object w = state == NEW ? payload : null;
        return getClass().getSimpleName() + "[" + status + (w != null ? ", task = " + w : "") + "]";
    }

    /** A one-shot task computing its result with a Callable. */
    static final class CallableTask<V> extends ScheduledTask<V> {
        CallableTask(WorkerPool pool, Callable<V> work, long time) {
            super(pool, work, time);
        }

        @Override
        @SuppressWarnings("unchecked")
        V invoke(Object w) throws Exception {
            return ((Callable<V>) w).call();
        }
    }

    /** A one-shot Runnable that reports a given result, for {@code submit(Runnable, result)}. */
    static final class RunnableWithResult<V> extends ScheduledTask<V> {
        private final V result;

        RunnableWithResult(WorkerPool pool, Runnable work, V result, long time) {
            super(pool, work, time);
            this.result = result;
        }

        @Override
        V invoke(Object w) {
            ((Runnable) w).run();
            return result;
        }
    }

    static final class WaitNode {
        volatile @Nullable Thread thread = Thread.currentThread();
        volatile @Nullable WaitNode next;
    }

    private static final VarHandle STATE;
    private static final VarHandle RUNNER;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ScheduledTask.class, "state", int.class);
            RUNNER = lookup.findVarHandle(ScheduledTask.class, "runner", Thread.class);
            WAITERS = lookup.findVarHandle(ScheduledTask.class, "waiters", WaitNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
