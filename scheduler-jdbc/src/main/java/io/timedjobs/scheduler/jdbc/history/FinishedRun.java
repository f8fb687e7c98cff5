package io.timedjobs.scheduler.jdbc.history;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: what the clustered jobs and the durable engine hand to {@link RunHistory} when a run
 * ends. Immutable; any thread. The start is not in it: the database writes its end's time less the
 * duration, so that every instance's records read on one clock.
 *
 * @param error the error summary ({@link RunHistory#errorSummary}), or null
 * @param catchUp whether the run is of a missed fire, run later by the job's catch-up policy
 * @param stackTrace the failure's bounded stack trace ({@link RunHistory#stackTrace}), or null
 */
public record FinishedRun(
        RunKind kind,
        String name,
        @Nullable String taskKey,
        java.time.Instant fireAt,
        String instance,
        long durationMillis,
        RunOutcome outcome,
        int attempt,
        @Nullable String error,
        boolean catchUp,
        @Nullable String stackTrace) {

    public FinishedRun {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(fireAt, "fireAt");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(outcome, "outcome");
        if (outcome == RunOutcome.SKIPPED) {
            throw new IllegalArgumentException("A run that ended is no skip; skips are recorded as SkippedFires");
        }
    }

    /** A run of its nominal fire, with no stack trace. */
    public FinishedRun(
            RunKind kind,
            String name,
            @Nullable String taskKey,
            java.time.Instant fireAt,
            String instance,
            long durationMillis,
            RunOutcome outcome,
            int attempt,
            @Nullable String error) {
        this(kind, name, taskKey, fireAt, instance, durationMillis, outcome, attempt, error, false, null);
    }

    /**
     * A clustered job's run of {@code fire} on {@code instance}, ended now after {@code durationNanos};
     * {@code failure} what it threw, or null.
     */
    public static FinishedRun ofJob(
            String job,
            java.time.Instant fire,
            String instance,
            long durationNanos,
            @Nullable Throwable failure,
            boolean catchUp) {
        return new FinishedRun(
                RunKind.JOB,
                job,
                null,
                fire,
                instance,
                java.time.Duration.ofNanos(durationNanos).toMillis(),
                failure == null ? RunOutcome.SUCCEEDED : RunOutcome.FAILED,
                1,
                failure == null ? null : RunHistory.errorSummary(failure),
                catchUp,
                failure == null ? null : RunHistory.stackTrace(failure));
    }
}
