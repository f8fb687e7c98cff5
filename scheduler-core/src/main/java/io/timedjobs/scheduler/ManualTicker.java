package io.timedjobs.scheduler;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Ticker} that moves only when told to, for tests that must not depend on real time.
 *
 * <p>A scheduler built with a manual ticker never waits on real time: its leader sleeps until the
 * ticker is {@linkplain #advance(Duration) advanced} and then runs every task that came due. The
 * ticker also offers a matching wall {@linkplain #clock() clock}, which the scheduler uses unless
 * the builder is given another.
 *
 * <p>A ticker made by {@link #startingNow(Duration)} is the one for tests of an application's
 * jobs: its clock reads the real time until the first advance, so that start times computed from
 * the system clock while the application starts (Spring's {@code initialDelay}, cron) agree with
 * it, and from then on moves only with the ticker; and each advance returns only once every
 * execution that came due has finished.
 *
 * <p>This class is thread-safe.
 */
public final class ManualTicker implements Ticker {

    /** How long one advance waits between two looks at its schedulers. */
    private static final long SETTLE_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final AtomicLong nanos;

    /**
     * Which reading the clock's origin belongs to; null while the clock still follows the system
     * clock (until the first advance of a ticker made by startingNow). Set once.
     */
    private volatile @Nullable Anchor anchor;

    /** How long an advance waits for what came due to finish; null: it does not wait. */
    private final @Nullable Duration awaitExecutions;

    private final CopyOnWriteArrayList<Runnable> advanceListeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteArrayList<LeaderFollowerScheduler> schedulers = new CopyOnWriteArrayList<>();

    /** The clock reads {@code origin} while the ticker reads {@code nanos}. */
    private record Anchor(long nanos, Instant origin) {}

    /** Creates a ticker that reads {@code 0}, whose clock starts at {@code 2026-01-01T00:00:00Z}. */
    public ManualTicker() {
        this(0L, Instant.parse("2026-01-01T00:00:00Z"));
    }

    /**
     * Creates a ticker with the given first reading and clock origin.
     *
     * @param initialNanos the first reading; any value, including ones close to overflow
     * @param origin what the clock reads while the ticker reads {@code initialNanos}
     */
    public ManualTicker(long initialNanos, Instant origin) {
        this.nanos = new AtomicLong(initialNanos);
        this.anchor = new Anchor(initialNanos, Objects.requireNonNull(origin, "origin"));
        this.awaitExecutions = null;
    }

    private ManualTicker(Duration awaitExecutions) {
        this.nanos = new AtomicLong(0L);
        this.anchor = null;
        this.awaitExecutions = awaitExecutions;
    }

    /**
     * Creates a ticker for tests of an application's jobs: its clock reads the real time until the
     * first advance, and each advance returns only once every execution that came due on the
     * schedulers using it has finished, including the executions those scheduled that are due
     * too, waiting at most {@code awaitExecutions} for them.
     *
     * @param awaitExecutions longest wait of one advance; positive
     */
    public static ManualTicker startingNow(Duration awaitExecutions) {
        Objects.requireNonNull(awaitExecutions, "awaitExecutions");
        if (awaitExecutions.isNegative() || awaitExecutions.isZero()) {
            throw new IllegalArgumentException("awaitExecutions must be positive, was " + awaitExecutions);
        }
        return new ManualTicker(awaitExecutions);
    }

    @Override
    public long read() {
        return nanos.get();
    }

    /**
     * Moves time forward and wakes the schedulers that use this ticker. A ticker made by {@link
     * #startingNow(Duration)} returns once everything that came due has run.
     *
     * @param amount how far; must not be negative
     * @return the new reading
     * @throws IllegalStateException if what came due did not finish within the wait; the message
     *     names the code still running
     */
    public long advance(Duration amount) {
        Objects.requireNonNull(amount, "amount");
        return advanceNanos(amount.isNegative() ? -1 : saturatedNanos(amount));
    }

    /**
     * Moves time forward and wakes the schedulers that use this ticker; see {@link
     * #advance(Duration)}.
     *
     * @param amount how far; must not be negative
     * @param unit the unit of {@code amount}
     * @return the new reading
     */
    public long advance(long amount, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        return advanceNanos(amount < 0 ? -1 : unit.toNanos(amount));
    }

    private long advanceNanos(long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("A ticker only moves forward; amount must not be negative");
        }
        fixOrigin();
        long now = nanos.addAndGet(delta);
        for (Runnable listener : advanceListeners) {
            listener.run();
        }
        Duration wait = awaitExecutions;
        if (wait != null) {
            awaitSettled(wait);
        }
        return now;
    }

    /** At the first advance, the clock stops following the system clock: it keeps its reading. */
    private void fixOrigin() {
        if (anchor == null) {
            synchronized (this) {
                if (anchor == null) {
                    anchor = new Anchor(nanos.get(), Instant.now());
                }
            }
        }
    }

    private void awaitSettled(Duration wait) {
        long deadline = System.nanoTime() + saturatedNanos(wait);
        for (LeaderFollowerScheduler scheduler : schedulers) {
            while (!SettleProbe.isSettled(scheduler)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("What came due did not finish within " + wait + " of advancing "
                            + this + ": " + SettleProbe.describeBusy(scheduler));
                }
                LockSupport.parkNanos(SETTLE_POLL_NANOS);
            }
        }
        // An execution on one scheduler may have scheduled a due task on another checked before.
        for (LeaderFollowerScheduler scheduler : schedulers) {
            if (!SettleProbe.isSettled(scheduler)) {
                awaitSettled(Duration.ofNanos(Math.max(1L, deadline - System.nanoTime())));
                return;
            }
        }
    }

    /**
     * Returns a wall clock in UTC that moves with this ticker: it reads the origin given at
     * construction plus the time this ticker has advanced since (for a ticker made by {@link
     * #startingNow(Duration)}: the real time until the first advance, then the real time of the
     * first advance plus the time advanced since).
     */
    @Override
    public Clock clock() {
        return new TickerClock(ZoneOffset.UTC);
    }

    /** Answers false: this ticker moves only when {@linkplain #advance(Duration) advanced}. */
    @Override
    public boolean movesWithRealTime() {
        return false;
    }

    /**
     * Wakes the scheduler's leader at each advance and, for a ticker made by {@link
     * #startingNow(Duration)}, makes each advance wait for the scheduler's due executions.
     */
    @Override
    public void register(LeaderFollowerScheduler scheduler) {
        onAdvance(scheduler.pool().timeAdvancedCallback());
        watch(scheduler);
    }

    /** Registers a callback run after every advance; used by the scheduler to wake its leader. */
    void onAdvance(Runnable listener) {
        advanceListeners.add(listener);
    }

    /** Registers a scheduler whose executions an advance waits for; terminated ones are dropped. */
    void watch(LeaderFollowerScheduler scheduler) {
        schedulers.removeIf(LeaderFollowerScheduler::isTerminated);
        schedulers.add(scheduler);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public String toString() {
        return "ManualTicker[" + nanos.get() + "ns]";
    }

    private final class TickerClock extends Clock {
        private final ZoneId zone;

        TickerClock(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId newZone) {
            return new TickerClock(newZone);
        }

        @Override
        public Instant instant() {
            Anchor fixed = anchor;
            return fixed == null ? Instant.now() : fixed.origin().plusNanos(nanos.get() - fixed.nanos());
        }
    }
}
