package io.timedjobs.scheduler.jdbc.history;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. Which records {@link RunHistory#find(RunHistoryQuery)} returns: every
 * condition that is set must hold; records come latest start first, at most {@link #limit()} of
 * them. Start from {@link #all()} and narrow it.
 *
 * @param job only this clustered job's runs, or any
 * @param task only this durable task handler's executions, or any
 * @param instance only runs of this instance, or any
 * @param outcomes only runs that ended one of these ways; empty for any
 * @param from only runs started at or after this instant, or any
 * @param to only runs started before this instant, or any
 * @param limit at most this many records
 */
public record RunHistoryQuery(
        @Nullable String job,
        @Nullable String task,
        @Nullable String instance,
        Set<RunOutcome> outcomes,
        @Nullable Instant from,
        @Nullable Instant to,
        int limit) {

    /** The default limit. */
    public static final int DEFAULT_LIMIT = 100;

    public RunHistoryQuery {
        outcomes = Set.copyOf(outcomes);
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        if (job != null && task != null) {
            throw new IllegalArgumentException("A record is a job's run or a task's execution: set job or task,"
                    + " not both (job " + job + ", task " + task + ")");
        }
    }

    /** Every record, up to {@link #DEFAULT_LIMIT}. */
    public static RunHistoryQuery all() {
        return new RunHistoryQuery(null, null, null, Set.of(), null, null, DEFAULT_LIMIT);
    }

    public RunHistoryQuery job(String job) {
        return new RunHistoryQuery(Objects.requireNonNull(job), task, instance, outcomes, from, to, limit);
    }

    public RunHistoryQuery task(String handler) {
        return new RunHistoryQuery(job, Objects.requireNonNull(handler), instance, outcomes, from, to, limit);
    }

    public RunHistoryQuery instance(String instance) {
        return new RunHistoryQuery(job, task, Objects.requireNonNull(instance), outcomes, from, to, limit);
    }

    /** Only runs that ended one of these ways. */
    public RunHistoryQuery outcome(RunOutcome first, RunOutcome... more) {
        return new RunHistoryQuery(job, task, instance, EnumSet.of(first, more), from, to, limit);
    }

    /** Only runs that threw: {@link RunOutcome#FAILED} and {@link RunOutcome#RETRIED}. */
    public RunHistoryQuery failures() {
        return outcome(RunOutcome.FAILED, RunOutcome.RETRIED);
    }

    public RunHistoryQuery from(Instant from) {
        return new RunHistoryQuery(job, task, instance, outcomes, Objects.requireNonNull(from), to, limit);
    }

    public RunHistoryQuery to(Instant to) {
        return new RunHistoryQuery(job, task, instance, outcomes, from, Objects.requireNonNull(to), limit);
    }

    public RunHistoryQuery limit(int limit) {
        return new RunHistoryQuery(job, task, instance, outcomes, from, to, limit);
    }
}
