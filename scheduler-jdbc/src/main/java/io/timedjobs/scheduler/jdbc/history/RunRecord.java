package io.timedjobs.scheduler.jdbc.history;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. One run, or one range of skipped fires, as the {@link RunHistory} recorded
 * it.
 *
 * @param id the record's id, increasing in the order records were written
 * @param kind a clustered job's run or a durable task's execution
 * @param name the job's name, or the durable task's handler
 * @param taskKey the durable task's key; null for a job
 * @param fireAt the nominal fire the run was for, or the first one a skip covers (database time)
 * @param instance the instance that ran it, or that noticed the skip
 * @param startedAt when it started, by the database's clock (its end, less its duration); for a
 *     skip, when it was first recorded
 * @param duration how long it ran; zero for a skip
 * @param outcome how it ended; {@link RunOutcome#SKIPPED} for a skip
 * @param attempt which attempt it was (1 for a job)
 * @param error the exception's class and message, cut to {@link RunHistory#ERROR_LENGTH}; null
 *     for a run that succeeded and for a skip
 * @param fireUntil the last nominal fire the record covers: {@code fireAt} for a run; for a skip of
 *     consecutive fires (a pause, an outage), the last of them
 * @param fires how many nominal fires the record covers: 1 for a run
 * @param skipReason why the fires did not run; null for a run
 * @param catchUp whether the run is of a missed fire, run later by the job's catch-up policy
 * @param stackTrace the failure's stack trace, cut to {@link RunHistory#STACK_TRACE_LENGTH}
 *     characters; null for a run that succeeded, a skip, a record written by an instance of
 *     schema version 5, and a record read in a page ({@link RunHistory#page}, which leaves it out)
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
        @Nullable String error,
        Instant fireUntil,
        long fires,
        @Nullable SkipReason skipReason,
        boolean catchUp,
        @Nullable String stackTrace) {

    public RunRecord {
        Objects.requireNonNull(fireAt, "fireAt");
        Objects.requireNonNull(fireUntil, "fireUntil");
        Objects.requireNonNull(outcome, "outcome");
        if ((outcome == RunOutcome.SKIPPED) != (skipReason != null)) {
            throw new IllegalArgumentException(
                    "A skip has a reason and a run has none; got " + outcome + " with reason " + skipReason);
        }
    }

    /** A run of one fire, as written before skips were recorded. */
    public RunRecord(
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
            @Nullable String error) {
        this(
                id, kind, name, taskKey, fireAt, instance, startedAt, duration, outcome, attempt, error, fireAt, 1,
                null, false, null);
    }

    /** Whether the record is of skipped fires rather than a run. */
    public boolean skipped() {
        return skipReason != null;
    }

    /** Whether the record covers the nominal fire {@code at}: it lies from its first fire to its last. */
    public boolean covers(Instant at) {
        return !at.isBefore(fireAt) && !at.isAfter(fireUntil);
    }
}
