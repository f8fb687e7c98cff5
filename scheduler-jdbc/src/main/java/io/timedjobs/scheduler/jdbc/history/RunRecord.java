package io.timedjobs.scheduler.jdbc.history;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. One run as the {@link RunHistory} recorded it.
 *
 * @param id the record's id, increasing in the order records were written
 * @param kind a clustered job's run or a durable task's execution
 * @param name the job's name, or the durable task's handler
 * @param taskKey the durable task's key; null for a job
 * @param fireAt the nominal fire the run was for (database time)
 * @param instance the instance that ran it
 * @param startedAt when it started, by the database's clock (its end, less its duration)
 * @param duration how long it ran
 * @param outcome how it ended
 * @param attempt which attempt it was (1 for a job)
 * @param error the exception's class and message, cut to {@link RunHistory#ERROR_LENGTH}; null
 *     for a run that succeeded
 */
public record RunRecord(
        long id,
        RunKind kind,
        String name,
        @Nullable String taskKey,
        Instant fireAt,
        String instance,
        Instant startedAt,
        Duration duration,
        RunOutcome outcome,
        int attempt,
        @Nullable String error) {}
