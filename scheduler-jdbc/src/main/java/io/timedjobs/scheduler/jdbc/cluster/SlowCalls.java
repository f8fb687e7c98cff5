package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
 * also held below the scheduler's workers ({@link #roomFor}); a fire that finds no room tries again
 * {@link #RETRY_STEP} later (a healthy database has answered by then), so one worker always stays
 * free of the database.
 */
final class SlowCalls {

    /** How long a call may be in flight before the database counts as suspect. */
    static final Duration SUSPECT = Duration.ofMillis(100);

    /** How long a fire that found no room for its call waits before it tries again. */
    static final Duration RETRY_STEP = Duration.ofMillis(10);

    /** Begin time (System.nanoTime()) of each call in flight, by its token. */
    private final Map<Object, Long> inFlight = new ConcurrentHashMap<>();

    /** Notes a call beginning now; pass the token to {@link #end}. */
    Object begin() {
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
     * Returns whether a call may begin on a scheduler of {@code workers} threads (0 when unknown:
     * no limit): fewer calls than its workers less one are in flight, so that one stays free.
     */
    boolean roomFor(int workers) {
        return workers <= 0 || inFlight.size() < Math.max(1, workers - 1);
    }
}
