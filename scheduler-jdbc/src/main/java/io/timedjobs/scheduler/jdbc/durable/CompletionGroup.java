package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; used by {@link DurableOutcomes} only, on the engine's workers. Group commit of the
 * completions of one-off tasks whose handler ran outside a transaction: a worker whose task
 * succeeded {@linkplain #add adds} its completion and goes on at once to its next task. The
 * completions waiting are written in groups of at most {@value #MAX_GROUP}, one transaction each,
 * by one thread at a time, which takes along those that arrive while it writes.
 *
 * <p>When nobody is writing, a completion waits for company: the first to arrive sets a timer
 * {@linkplain #LINGER a short while} ahead, and whatever arrived by then is written as one group
 * (at once when a full group is waiting). So tasks ending a few milliseconds apart share a commit
 * instead of committing one each. Without a timer (the engine not started, or stopping) each is
 * written at once by the worker that added it. A completion written late only widens the
 * at-least-once window (the task runs again if this instance dies before its completion is
 * written), by at most the linger plus the time one group takes to write.
 */
final class CompletionGroup {

    /** The most completions written in one transaction. */
    static final int MAX_GROUP = 200;

    /** The longest a completion waits for others to share its commit. */
    static final Duration LINGER = Duration.ofMillis(100);

    /** A handler's success, waiting to be written. */
    record Completion(ClaimedTask task, FinishedRun run, long lapsesAtStart) {}

    private final Queue<Completion> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean writing = new AtomicBoolean();

    /** Whether a timer will write what waits; set by the adder that sets it, cleared as it fires. */
    private final AtomicBoolean timerSet = new AtomicBoolean();

    private final Consumer<List<Completion>> writer;

    private final long lingerNanos;

    /**
     * The thread that writes what waited for company, between {@link #startLingering} and {@link
     * #stopLingering}; null to write each completion at once. A thread of its own, as the engine's
     * workers may all be busy with long handlers for longer than the linger.
     */
    private volatile @Nullable ScheduledThreadPoolExecutor timer;

    /**
     * @param writer writes one group, in one transaction where it holds more than one; never throws
     *     (what it cannot write, it keeps for later)
     */
    CompletionGroup(Consumer<List<Completion>> writer) {
        this(writer, LINGER);
    }

    /** As {@link #CompletionGroup(Consumer)}, with the longest a completion waits for company. */
    CompletionGroup(Consumer<List<Completion>> writer, Duration linger) {
        this.writer = writer;
        this.lingerNanos = linger.toNanos();
    }

    /**
     * Lets completions wait for company from now on, on a daemon thread named {@code threadName}; does
     * nothing with a linger of zero.
     */
    synchronized void startLingering(String threadName) {
        if (timer != null || lingerNanos == 0) {
            return;
        }
        ScheduledThreadPoolExecutor started = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        started.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        timerSet.set(false); // a timer dropped by an earlier stop never fires
        timer = started;
    }

    /**
     * Writes each completion at once from now on, and waits up to {@code timeout} for a group being
     * written on the timer's thread; what still waits is for {@link #writeWaiting()} to write.
     */
    void stopLingering(Duration timeout) throws InterruptedException {
        ScheduledThreadPoolExecutor stopped;
        synchronized (this) {
            stopped = timer;
            timer = null;
        }
        if (stopped != null) {
            stopped.shutdown();
            stopped.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Adds a completion: the thread writing takes it along; else it waits for company (see the class
     * comment), or is written now, with the others waiting, when there is no timer or a full group.
     */
    void add(Completion completion) {
        waiting.add(completion);
        ScheduledThreadPoolExecutor lingering = timer;
        if (size.incrementAndGet() >= MAX_GROUP || lingering == null) {
            writeWaiting();
        } else if (timerSet.compareAndSet(false, true)) {
            try {
                lingering.schedule(
                        () -> {
                            // cleared before the write: one added after the write's last look sets a new timer
                            timerSet.set(false);
                            writeWaiting();
                        },
                        lingerNanos,
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopping) {
                timerSet.set(false);
                writeWaiting();
            }
        }
    }

    /**
     * Writes what waits, unless another thread writes already (it takes all of it). The check after
     * each round sees what was added while the flag was held: an adder that found the flag taken
     * relies on it.
     */
    void writeWaiting() {
        while (!waiting.isEmpty() && writing.compareAndSet(false, true)) {
            try {
                List<Completion> group;
                while (!(group = next()).isEmpty()) {
                    try {
                        writer.accept(group);
                    } finally {
                        size.addAndGet(-group.size());
                    }
                }
            } finally {
                writing.set(false);
            }
        }
    }

    /** Completions added and not written yet (being written included). */
    int size() {
        return size.get();
    }

    private List<Completion> next() {
        List<Completion> group = new ArrayList<>();
        Completion completion;
        while (group.size() < MAX_GROUP && (completion = waiting.poll()) != null) {
            group.add(completion);
        }
        return group;
    }
}
