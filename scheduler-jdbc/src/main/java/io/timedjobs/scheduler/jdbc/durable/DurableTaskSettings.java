package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import java.time.Duration;
import java.util.Objects;

/**
 * Immutable; any thread. How one instance claims, leases and retries durable tasks.
 *
 * @param lookahead how far ahead of their due time tasks are claimed into the in-memory queue
 * @param pollInterval how often to claim and rescue expired claims; the leases are renewed at the
 *     first poll of each {@linkplain LeaseRule#renewalInterval renewal interval}
 * @param lease how long a claim lives without renewal before another instance takes it over; longer
 *     than the poll interval (see {@link LeaseRule})
 * @param maxAttempts how many times a task is started before it stays FAILED
 * @param initialBackoff the delay before the first retry; each further retry doubles it
 * @param maxBackoff the longest delay between retries
 * @param batchSize the most tasks one claim statement takes
 * @param poolSize the worker threads that run handlers
 */
public record DurableTaskSettings(
        Duration lookahead,
        Duration pollInterval,
        Duration lease,
        int maxAttempts,
        Duration initialBackoff,
        Duration maxBackoff,
        int batchSize,
        int poolSize) {

    public DurableTaskSettings {
        positive("lookahead", lookahead, true);
        positive("pollInterval", pollInterval, false);
        positive("lease", lease, false);
        positive("initialBackoff", initialBackoff, true);
        positive("maxBackoff", maxBackoff, true);
        if (maxAttempts < 1 || batchSize < 1 || poolSize < 1) {
            throw new IllegalArgumentException("maxAttempts, batchSize and poolSize must be at least 1, got "
                    + maxAttempts + ", " + batchSize + " and " + poolSize);
        }
        LeaseRule.requireRenewable(lease, pollInterval);
    }

    /** The defaults: 5 s lookahead, 1 s poll, 30 s lease, 5 attempts from 1 s up to 5 min apart. */
    public static DurableTaskSettings defaults() {
        return new DurableTaskSettings(
                Duration.ofSeconds(5),
                Duration.ofSeconds(1),
                Duration.ofSeconds(30),
                5,
                Duration.ofSeconds(1),
                Duration.ofMinutes(5),
                1000,
                Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** The delay before retrying after the given number of attempts (at least 1). */
    Duration backoff(int attempts) {
        int doublings = Math.min(Math.max(attempts - 1, 0), 30);
        Duration delay = initialBackoff.multipliedBy(1L << doublings);
        return delay.compareTo(maxBackoff) > 0 ? maxBackoff : delay;
    }

    private static void positive(String name, Duration value, boolean zeroAllowed) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || (!zeroAllowed && value.isZero())) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
