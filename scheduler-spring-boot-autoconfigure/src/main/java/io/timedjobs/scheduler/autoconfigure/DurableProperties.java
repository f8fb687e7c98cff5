package io.timedjobs.scheduler.autoconfigure;

import static io.timedjobs.scheduler.autoconfigure.SchedulerProperties.PREFIX;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Bound once at start-up, then read by the auto-configurations: the {@code timed-jobs.durable.*} keys.
 *
 * <p>Durable tasks: stored in the database, claimed by one instance within the cluster lookahead
 * and retried on failure (needs scheduler-jdbc and a DataSource).
 */
public class DurableProperties {

    /** How many times a durable task is started before it stays FAILED. */
    private int maxAttempts = 5;

    /** Delay before the first retry of a failed durable task; each further retry doubles it. */
    private Duration initialBackoff = Duration.ofSeconds(1);

    /** Longest delay between two retries of a failed durable task. */
    private Duration maxBackoff = Duration.ofMinutes(5);

    /** Most durable tasks one claim statement takes. */
    private int batchSize = 1000;

    /** Worker threads that run durable task handlers. Defaults to processors, at least 2. */
    private @Nullable Integer poolSize;

    /**
     * Whether to hear of tasks other instances schedule through PostgreSQL's LISTEN/NOTIFY, on one
     * connection held per instance with a handler: an instance with nothing due soon then looks only
     * with its heartbeat and still starts such tasks on time. Ignored on other databases, which poll at
     * every poll interval.
     */
    private boolean listen = true;

    /**
     * Longest the completion of a one-off durable task waits for others to share its commit. It
     * widens the at-least-once window by as much: a task whose completion still waits when its
     * instance dies runs again once its lease ends. 0 writes each completion as its handler returns.
     */
    private Duration completionLinger = Duration.ofMillis(100);

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = atLeastOne(maxAttempts, "max-attempts");
    }

    public Duration getInitialBackoff() {
        return initialBackoff;
    }

    public void setInitialBackoff(Duration initialBackoff) {
        this.initialBackoff = notNegative(initialBackoff, "initial-backoff");
    }

    public Duration getMaxBackoff() {
        return maxBackoff;
    }

    public void setMaxBackoff(Duration maxBackoff) {
        this.maxBackoff = notNegative(maxBackoff, "max-backoff");
    }

    public int getBatchSize() {
        return batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = atLeastOne(batchSize, "batch-size");
    }

    public boolean isListen() {
        return listen;
    }

    public void setListen(boolean listen) {
        this.listen = listen;
    }

    public Duration getCompletionLinger() {
        return completionLinger;
    }

    public void setCompletionLinger(Duration completionLinger) {
        this.completionLinger = notNegative(completionLinger, "completion-linger");
    }

    public @Nullable Integer getPoolSize() {
        return poolSize;
    }

    public void setPoolSize(@Nullable Integer poolSize) {
        this.poolSize = poolSize == null ? null : atLeastOne(poolSize, "pool-size");
    }

    private static int atLeastOne(int value, String key) {
        if (value < 1) {
            throw new IllegalArgumentException(PREFIX + ".durable." + key + " must be at least 1, was " + value);
        }
        return value;
    }

    private static Duration notNegative(Duration value, String key) {
        Objects.requireNonNull(value, PREFIX + ".durable." + key);
        if (value.isNegative()) {
            throw new IllegalArgumentException(PREFIX + ".durable." + key + " must not be negative, was " + value);
        }
        return value;
    }
}
