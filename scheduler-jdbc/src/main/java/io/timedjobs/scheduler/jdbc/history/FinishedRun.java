package io.timedjobs.scheduler.jdbc.history;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Not API: what the clustered jobs and the durable engine hand to {@link RunHistory} when a run
 * ends. Immutable; any thread. The start is not in it: the database writes its end's time less the
 * duration, so that every instance's records read on one clock.
 *
 * @param error the error summary ({@link RunHistory#errorSummary}), or null
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
        @Nullable String error) {

    public FinishedRun {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(fireAt, "fireAt");
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(outcome, "outcome");
    }
}
