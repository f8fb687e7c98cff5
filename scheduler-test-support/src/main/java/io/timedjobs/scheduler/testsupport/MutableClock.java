package io.timedjobs.scheduler.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Thread-safe: a test sets it, any thread reads it. A wall clock that tests set by hand,
 * independent of any ticker, to make the two drift apart. Fixed to UTC.
 */
public final class MutableClock extends Clock {

    private final AtomicReference<Instant> now;

    public MutableClock(Instant start) {
        this.now = new AtomicReference<>(start);
    }

    public void set(Instant instant) {
        now.set(instant);
    }

    public void advance(Duration amount) {
        now.updateAndGet(instant -> instant.plus(amount));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Returns this clock: it stays in UTC, since tests read only its instant. */
    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now.get();
    }
}
