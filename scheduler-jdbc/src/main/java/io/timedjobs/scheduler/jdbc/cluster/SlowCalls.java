package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the database calls the clustered jobs of one instance have in flight on the
 * scheduler's workers, so that a database gone silent holds as few workers as possible before
 * anyone knows it is away. A healthy database answers a fire's statements in milliseconds; once a
 * call has waited longer than {@link #SUSPECT}, the jobs begin no new call (a fire is skipped as
 * {@code database-down}, a fixed-delay job looks again a poll later) until it ends. So at the start
 * of an outage only the calls begun in its first {@link #SUSPECT} wait the database timeout, and
 * the other workers stay free for the jobs that run on every instance. A fire skipped here is
 * skipped on this instance only: an instance that still reaches the database records and runs it.
 *
 * <p>Fires due together would all begin their calls before any is suspect: so calls in flight are
 * also held below the scheduler's workers ({@link #beginIfRoom}); a fire that finds no room tries again
 * {@link #RETRY_STEP} later (a healthy database has answered by then), and the end of a run that
 * finds no room writes itself on a helper thread ({@link #endOfRun}), so one worker always stays
 * free of the database.
 */
final class SlowCalls {

    /**
     * How long a call may be in flight before the database counts as suspect: far above what a
     * healthy database takes (milliseconds), so that a slow statement (a lock wait, a pause of the
     * server) skips no fire, and well below the database timeout, so that few calls wait it out.
     */
    static final Duration SUSPECT = Duration.ofMillis(500);

    /** How long a fire that found no room for its call waits before it tries again. */
    static final Duration RETRY_STEP = Duration.ofMillis(10);

    /** Ends of runs written off the workers at once; beyond them one is written on its worker. */
    private static final int MAX_HELPERS = 16;

    private static final AtomicInteger HELPERS = new AtomicInteger();

    /** Threads for the ends of runs that find no room; daemon, and gone when idle. */
    private final ThreadPoolExecutor helpers =
            new ThreadPoolExecutor(0, MAX_HELPERS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), job -> {
                Thread thread = new Thread(job, "timed-jobs-run-end-" + HELPERS.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });

    /** Begin time (System.nanoTime()) of each call in flight, by its token. */
    private final Map<Object, Long> inFlight = new ConcurrentHashMap<>();

    /** Notes a call beginning now, room or not; pass the token to {@link #end}. */
    synchronized Object begin() {
        Object token = new Object();
        inFlight.put(token, System.nanoTime());
        return token;
    }

    void end(Object token) {
        inFlight.remove(token);
    }

    /** Returns whether a call has been in flight longer than {@link #SUSPECT}: begin none now. */
    boolean suspect() {
        long now = System.nanoTime();
        long limit = SUSPECT.toNanos();
        for (long began : inFlight.values()) {
            if (now - began > limit) {
                return true;
            }
        }
        return false;
    }

    /**
     * Notes a call beginning now if there is room for it on a scheduler of {@code workers} threads
     * (0 when unknown: no limit): fewer calls than its workers less one are in flight, so that one
     * stays free. Returns the token for {@link #end}, or null when there is no room.
     */
    synchronized @Nullable Object beginIfRoom(int workers) {
        if (workers > 0 && inFlight.size() >= Math.max(1, workers - 1)) {
            return null;
        }
        return begin();
    }

    /**
     * Writes the end of a run (the release of its lease, its record): on this worker when there is
     * room, else on a helper thread, so that a database gone silent does not take the last free
     * worker. Either way the call counts as in flight until it ends.
     */
    void endOfRun(int workers, Runnable write) {
        Object room = beginIfRoom(workers);
        Object token = room != null ? room : begin();
        Runnable tracked = () -> {
            try {
                write.run();
            } finally {
                end(token);
            }
        };
        if (room != null) {
            tracked.run();
            return;
        }
        try {
            helpers.execute(tracked);
        } catch (RejectedExecutionException full) {
            tracked.run();
        }
    }
}
