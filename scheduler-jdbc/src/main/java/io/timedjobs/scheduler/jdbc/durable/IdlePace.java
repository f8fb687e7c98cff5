package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.BeatRide;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Used by {@link DurableTaskEngine} only: {@link #skip} and {@link #trySleep} under its claim lock,
 * {@link #wakeBy} and {@link #wakeNow} from any thread. Whether an instance that listens for
 * notifications sleeps between polls, because nothing can be due for it soon, and until when.
 *
 * <p>An instance sleeps only when it holds no claim and no task of its handlers is claimed or
 * running anywhere, and none is due within the lookahead and a poll interval. It wakes at the first
 * of: the lookahead ahead of the earliest pending task's due time; {@linkplain #wakeBy a wake-up
 * requested} (a task announced by another instance, a hand-back); a look that finds work about.
 * It looks (the next-event query) with each heartbeat, which carries that query ({@link #ride()},
 * PostgreSQL): every {@linkplain LeaseRule#beatInterval beat interval}, at no statement of its own. Should no beat bring a look for the
 * idle interval and two polls, it looks on its own (one statement).
 *
 * <p>Why a sleeper misses nothing: a task pending when it looked wakes it in time; a task scheduled
 * after is announced to it, unless the instance that scheduled it claimed it; a claim made while it
 * sleeps is seen at its next look, within a beat interval, so before the claim can expire, and from then
 * on the instance polls at every interval and rescues the claim within the lease and a poll, as an
 * awake one does. Should the notifications stop (a lost connection), it polls at every interval.
 */
final class IdlePace {

    /** While sleeping, the pending count is refreshed at most this often. */
    private static final long COUNT_EVERY_NANOS = Duration.ofMinutes(1).toNanos();

    private final DurableTaskStore store;
    private final DurableTaskPoll poll;
    private final DurableTaskSettings settings;
    private final Set<String> handlers;
    private final Ticker ticker;
    private final long idleNanos;

    private boolean sleeping;
    private long wakeAtNanos;

    /** The look the last heartbeat carried, not yet taken into account; null for none. */
    private volatile DurableTaskStore.@Nullable NextEvent carried;

    private final BeatRide ride;

    /** After an attempt to sleep found work about, the next attempt waits until nextAttemptNanos. */
    private boolean attemptDeferred;

    private long nextAttemptNanos;

    /** The earliest requested wake-up on the ticker, {@link Long#MAX_VALUE} for none. */
    private final AtomicLong wakeRequest = new AtomicLong(Long.MAX_VALUE);

    IdlePace(DurableTaskStore store, DurableTaskPoll poll, DurableTaskSettings settings, Ticker ticker) {
        this.store = store;
        this.poll = poll;
        this.settings = settings;
        this.handlers = poll.handlerNames();
        this.ticker = ticker;
        this.idleNanos = idleInterval(settings).toNanos();
        this.ride = store.nextEventRide(handlers, next -> carried = next);
    }

    /** The look for the next heartbeat to carry while sleeping, null while awake; see {@link BeatRide}. */
    @Nullable
    BeatRide ride() {
        return sleeping ? ride : null;
    }

    /**
     * The longest sleep: the beat interval, since each beat brings a look, so that a claim made
     * meanwhile is seen before it can expire.
     */
    static Duration idleInterval(DurableTaskSettings settings) {
        return LeaseRule.beatInterval(settings.lease(), settings.pollInterval());
    }

    /** Whether it sleeps now. */
    boolean sleeping() {
        return sleeping;
    }

    /**
     * Whether the poll due now may be skipped: sleeping, listening, holding nothing, and nothing due.
     * At the end of a sleep, runs the next-event query and sleeps on if nothing is due yet.
     *
     * @throws org.springframework.dao.DataAccessException when that query fails (awake then)
     */
    boolean skip(boolean listening, boolean holdsClaims) {
        if (!sleeping) {
            return false;
        }
        long now = ticker.read();
        long requested = wakeRequest.get();
        if (!listening || holdsClaims || (requested != Long.MAX_VALUE && now - requested >= 0)) {
            wake();
            return false;
        }
        DurableTaskStore.NextEvent beatLook = carried;
        carried = null;
        if (beatLook != null) {
            sleeping = false;
            attemptDeferred = false;
            return settle(beatLook, now);
        }
        if (now - wakeAtNanos < 0) {
            return true;
        }
        sleeping = false;
        attemptDeferred = false;
        return trySleep();
    }

    /**
     * Sleeps if nothing is claimed or due soon for this instance's handlers (one statement), or
     * tried too recently; returns whether it sleeps.
     *
     * @throws org.springframework.dao.DataAccessException when the query fails
     */
    boolean trySleep() {
        long now = ticker.read();
        if (attemptDeferred && now - nextAttemptNanos < 0) {
            return false;
        }
        return settle(store.nextEvent(handlers), now);
    }

    /** Sleeps unless {@code next}, looked at the ticker reading {@code now}, shows work about. */
    private boolean settle(DurableTaskStore.NextEvent next, long now) {
        Instant dbNow = next.now();
        long untilDue = Long.MAX_VALUE;
        if (next.nextDue() != null && dbNow != null) {
            untilDue = nanos(Duration.between(
                    dbNow, next.nextDue().minus(settings.lookahead()).minus(settings.pollInterval())));
        }
        if (next.claimed() || untilDue <= 0) {
            // work about: poll at every interval, and try again once a part of the idle interval passed
            attemptDeferred = true;
            nextAttemptNanos = now + idleNanos / 4;
            return false;
        }
        sleeping = true;
        // the heartbeat brings the next look within the idle interval; this is for a beat that fails
        wakeAtNanos =
                now + Math.min(untilDue, idleNanos + 2 * settings.pollInterval().toNanos());
        poll.countIfDue(COUNT_EVERY_NANOS);
        return true;
    }

    /** Asks for a full poll at the first poll from the ticker reading {@code atNanos} on. */
    void wakeBy(long atNanos) {
        wakeRequest.accumulateAndGet(atNanos, Math::min);
    }

    /** Asks for a full poll at the next poll. */
    void wakeNow() {
        wakeBy(ticker.read());
    }

    /** Ends a sleep: a full poll follows. Requests made from now on are kept for the next sleep. */
    private void wake() {
        sleeping = false;
        carried = null;
        attemptDeferred = false;
        wakeRequest.set(Long.MAX_VALUE);
    }

    private static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return duration.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
