package io.timedjobs.scheduler.jdbc.database;

import io.timedjobs.scheduler.Ticker;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: used by the heartbeat and the health component. Thread-safe: what the heartbeat's
 * thread last learnt of the database, for readers that must never wait on it themselves. Only the
 * heartbeat's thread reports ({@link #calling}, {@link #answered}, {@link #failed}); any thread
 * may {@link #read()}.
 *
 * <p>A reader learns three facts with their ages: how long ago the last call answered, whether a
 * call is in flight and for how long, and whether the last call failed. A call in flight for
 * longer than the database timeout, or a last answer older than a poll interval plus that timeout,
 * means the database is away even though no call has failed yet (a call may hang until its
 * timeout, and the heartbeat's thread may itself be stuck): the reader decides with those ages.
 *
 * <p>{@link #read()} also marks the reach as watched: while it is read (once within {@link
 * #WATCHED_FOR}), the heartbeat checks the database at every poll, so that a reader's ages stay
 * within a poll interval; unread, the heartbeat calls only at its own pace. So the age of the last
 * answer is measured from the later of that answer and the moment the reach was last found
 * unwatched: the first read after an idle spell answers from the last known state (age zero, not
 * the heartbeat's slower pace), and the reads after it are held to the poll bound again.
 */
public final class DatabaseReach {

    /** How long after a read the heartbeat keeps checking the database at every poll. */
    public static final Duration WATCHED_FOR = Duration.ofMinutes(10);

    private static final long NEVER = Long.MIN_VALUE;

    private final Ticker ticker;

    /** Ticker reading of the last answer, or {@link #NEVER}; written by the heartbeat's thread only. */
    private volatile long answeredAt = NEVER;

    /** Ticker reading at which the call in flight began, or {@link #NEVER}; heartbeat's thread only. */
    private volatile long callingSince = NEVER;

    /** Whether the last call that ended failed; heartbeat's thread only. */
    private volatile boolean lastFailed;

    /** Ticker reading of the last read, or {@link #NEVER}; written by readers, read by the heartbeat. */
    private volatile long readAt = NEVER;

    /** Ticker reading of the read that found the reach unwatched, or {@link #NEVER}; written by readers. */
    private volatile long watchedSince = NEVER;

    /** @param ticker the heartbeat's clock; the ages read are measured on it */
    public DatabaseReach(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /** What a reader learns: each age null where there is nothing to measure. */
    public record Reading(
            @Nullable Duration sinceAnswer, @Nullable Duration callInFlight, boolean lastFailed) {}

    /** Reports that a call to the database begins now. */
    public void calling() {
        callingSince = nonNever(ticker.read());
    }

    /** Reports that the call in flight was answered. */
    public void answered() {
        answeredAt = nonNever(ticker.read());
        lastFailed = false;
        callingSince = NEVER;
    }

    /** Reports that the call in flight failed. */
    public void failed() {
        lastFailed = true;
        callingSince = NEVER;
    }

    /** Returns whether someone read the reach lately, so that the heartbeat should check at every poll. */
    boolean watched() {
        return watchedAt(readAt, ticker.read());
    }

    private static boolean watchedAt(long read, long now) {
        return read != NEVER && now - read < WATCHED_FOR.toNanos();
    }

    /**
     * Returns the facts as of now, without touching the database, and marks the reach as watched.
     * The age of the last answer counts from no earlier than the read that began the watch: before
     * it, the heartbeat did not have to check at every poll.
     */
    public Reading read() {
        long now = nonNever(ticker.read());
        if (!watchedAt(readAt, now)) {
            watchedSince = now;
        }
        readAt = now;
        long since = callingSince;
        long answered = answeredAt;
        long watchStart = watchedSince;
        long measuredFrom =
                answered == NEVER || watchStart == NEVER || answered - watchStart >= 0 ? answered : watchStart;
        return new Reading(
                answered == NEVER ? null : Duration.ofNanos(now - measuredFrom),
                since == NEVER ? null : Duration.ofNanos(now - since),
                lastFailed);
    }

    private static long nonNever(long reading) {
        return reading == NEVER ? reading + 1 : reading;
    }
}
