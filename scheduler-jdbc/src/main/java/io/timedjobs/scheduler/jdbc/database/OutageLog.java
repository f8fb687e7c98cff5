package io.timedjobs.scheduler.jdbc.database;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Not API: used by the auto-configuration, the clustered jobs and durable tasks. Thread-safe:
 * logs database failures once per outage instead of once per attempt, and counts
 * them. Any thread may report a failure or a success.
 *
 * <p>An outage starts with the first {@link #failed} after a success (or at start): that one is
 * logged at ERROR with its stack trace; the failures after it are only counted. The first {@link
 * #succeeded()} after it ends the outage and logs one INFO line with its length and the number of
 * failures it saw.
 */
public final class OutageLog {

    private static final long NO_OUTAGE = Long.MIN_VALUE;

    private final Log log;
    private final String what;
    private final LongSupplier nanoTime;

    /** Start of the current outage in {@code nanoTime}, or {@link #NO_OUTAGE}. */
    private final AtomicLong outageStart = new AtomicLong(NO_OUTAGE);

    private final AtomicLong failuresInOutage = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong outages = new AtomicLong();

    /**
     * Creates a log for failures of {@code what} (for example "clustered jobs"), written to the
     * logger of {@code category}.
     */
    public OutageLog(Class<?> category, String what) {
        this(LogFactory.getLog(category), what, System::nanoTime);
    }

    OutageLog(Log log, String what, LongSupplier nanoTime) {
        this.log = Objects.requireNonNull(log, "log");
        this.what = Objects.requireNonNull(what, "what");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /** Reports a failed database call; logs it if it starts an outage. */
    public void failed(String action, Throwable failure) {
        failures.incrementAndGet();
        failuresInOutage.incrementAndGet();
        long now = nanoTime.getAsLong();
        if (outageStart.compareAndSet(NO_OUTAGE, now == NO_OUTAGE ? now + 1 : now)) {
            outages.incrementAndGet();
            log.error(
                    "Database unavailable for " + what + " (" + action + "); further failures are counted,"
                            + " not logged, until it is back",
                    failure);
        }
    }

    /** Reports a successful database call; logs the end of an outage if one was under way. */
    public void succeeded() {
        if (outageStart.get() == NO_OUTAGE) {
            return;
        }
        long start = outageStart.getAndSet(NO_OUTAGE);
        if (start != NO_OUTAGE) {
            long seen = failuresInOutage.getAndSet(0);
            log.info("Database available again for " + what + " after " + Duration.ofNanos(nanoTime.getAsLong() - start)
                    + " (" + seen + " failed attempt(s))");
        }
    }

    /** Returns whether an outage is under way: a failure was reported and no success since. */
    public boolean inOutage() {
        return outageStart.get() != NO_OUTAGE;
    }

    /** Returns the number of failures reported so far. */
    public long failureCount() {
        return failures.get();
    }

    /** Returns the number of outages started so far. */
    public long outageCount() {
        return outages.get();
    }

    /** Returns how long the current outage has lasted so far, or zero when none is under way. */
    public Duration outageLength() {
        long start = outageStart.get();
        return start == NO_OUTAGE ? Duration.ZERO : Duration.ofNanos(nanoTime.getAsLong() - start);
    }
}
