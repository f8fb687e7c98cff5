package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the database calls the clustered jobs of one instance have in flight on the
 * scheduler's workers, so that a database gone silent holds as few workers as possible before
 * anyone knows it is away. Calls in flight are held below the scheduler's workers ({@link
 * #beginIfRoom}), so that one worker stays free of them for the jobs that run on every instance.
 * A fire that finds no room tries again {@link #RETRY_STEP} later (a healthy database has answered
 * by then), unless a call has also waited longer than {@link #SUSPECT}: then the database is
 * likely away and the fire is skipped as {@code database-down} (a fixed-delay job looks again a
 * poll later), said once per spell of slowness ({@link #skipOnSuspicion}). A fire skipped here is
 * skipped on this instance only: an instance that still reaches the database records and runs it.
 *
 * <p>The end of a run that finds no room is written on a helper thread ({@link #endOfRun}); until
 * it is written the job's next fire on this instance waits (see {@link ClusteredJob}), and a
 * graceful stop waits for it too ({@link Departure}). Not capped: the calls of a catch-up of missed
 * fires ({@link CatchUpRun}), and the registration of a job; see docs/several-instances.md.
 */
final class SlowCalls {

    private static final Log logger = LogFactory.getLog(SlowCalls.class);

    /**
     * How long a call may be in flight before the database counts as suspect: far above what a
     * healthy database takes (milliseconds), so that a slow statement (a lock wait, a pause of the
     * server) skips no fire while there is room, and well below the database timeout, so that few
     * calls wait it out.
     */
    static final Duration SUSPECT = Duration.ofMillis(500);

    /** How long a fire that found no room for its call waits before it tries again. */
    static final Duration RETRY_STEP = Duration.ofMillis(10);

    /** Ends of runs written off the workers at once; beyond them one is written on its worker. */
    private static final int MAX_HELPERS = 16;

    /** How long a stop waits for the ends of runs written on helper threads. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private final String threadPrefix;

    private final AtomicInteger threads = new AtomicInteger();

    /** Threads for the ends of runs that find no room; daemon, gone when idle, replaced at a stop. */
    private volatile ThreadPoolExecutor helpers;

    /** Begin time (System.nanoTime()) of each call in flight, by its token. */
    private final Map<Object, Long> inFlight = new ConcurrentHashMap<>();

    /** Whether the skips of the present spell of slowness were logged. */
    private final AtomicBoolean spellLogged = new AtomicBoolean();

    /** The records of runs whose end could not be written, written at the heartbeat's polls. */
    private final UnwrittenEnds unwritten = new UnwrittenEnds();

    /** Calls of an instance whose name is unknown. */
    SlowCalls() {
        this("");
    }

    /** Calls of the instance {@code instanceName}, whose helper threads carry its name. */
    SlowCalls(String instanceName) {
        this.threadPrefix = "timed-jobs-run-end-" + (instanceName.isEmpty() ? "" : instanceName + "-");
        this.helpers = newHelpers();
    }

    /** Returns the records of runs whose end could not be written (see {@link UnwrittenEnds}). */
    UnwrittenEnds unwritten() {
        return unwritten;
    }

    private ThreadPoolExecutor newHelpers() {
        return new ThreadPoolExecutor(0, MAX_HELPERS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), job -> {
            Thread thread = new Thread(job, threadPrefix + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Notes a call beginning now, room or not; pass the token to {@link #end}. */
    synchronized Object begin() {
        Object token = new Object();
        inFlight.put(token, System.nanoTime());
        return token;
    }

    void end(Object token) {
        inFlight.remove(token);
    }

    /** Returns whether a call has been in flight longer than {@link #SUSPECT}. */
    boolean suspect() {
        long now = System.nanoTime();
        long limit = SUSPECT.toNanos();
        for (long began : inFlight.values()) {
            if (now - began > limit) {
                return true;
            }
        }
        spellLogged.set(false); // the spell, if any, is over: the next one is said again
        return false;
    }

    /**
     * For a fire of {@code job} on {@code instance} that found no room: returns true, saying so once
     * per spell of slowness, when it is to be skipped because a call is also {@link #suspect}; false
     * when it is to be tried again {@link #RETRY_STEP} later.
     */
    boolean skipOnSuspicion(String job, String instance) {
        if (!suspect()) {
            return false;
        }
        if (spellLogged.compareAndSet(false, true)) {
            logger.warn("A database call of the clustered jobs on " + instance + " has waited longer than "
                    + SUSPECT.toMillis() + " ms while the others hold every worker but one: the database is"
                    + " likely away or stalled, so fires of clustered jobs due meanwhile (first " + job + ") are"
                    + " skipped on this instance as database-down until a call ends. Other instances that reach"
                    + " the database run them; if the database is only slow, find what stalls its statements");
        }
        return true;
    }

    /**
     * Notes a call beginning now if there is room for it on a scheduler of {@code workers} threads
     * (0 when unknown or unbounded: no limit): fewer calls than its workers less one are in flight,
     * so that one stays free. Returns the token for {@link #end}, or null when there is no room.
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
     * worker. Either way the call counts as in flight until it ends; {@code done} runs after the
     * write, on the thread that wrote it. Returns whether the write was handed to a helper.
     */
    boolean endOfRun(int workers, Runnable write, Runnable done) {
        Object room = beginIfRoom(workers);
        Object token = room != null ? room : begin();
        Runnable tracked = () -> {
            try {
                write.run();
            } finally {
                end(token);
                done.run();
            }
        };
        if (room != null) {
            tracked.run();
            return false;
        }
        try {
            helpers.execute(() -> {
                try {
                    tracked.run();
                } catch (RuntimeException | Error ex) {
                    logger.error(
                            "The end of a clustered job's run failed on "
                                    + Thread.currentThread().getName(),
                            ex);
                }
            });
            return true;
        } catch (RejectedExecutionException full) {
            tracked.run();
            return false;
        }
    }

    /**
     * Waits a bounded time for the ends of runs on helper threads, and lets their threads go; a
     * later start gets new ones. Called by the instance's stop, after its fires ended.
     */
    void stop() {
        ThreadPoolExecutor stopping = helpers;
        helpers = newHelpers();
        stopping.shutdown();
        try {
            if (!stopping.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                logger.warn("The end of a clustered job's run still waits on the database after " + STOP_WAIT
                        + " as the instance stops; it goes on in the background");
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
