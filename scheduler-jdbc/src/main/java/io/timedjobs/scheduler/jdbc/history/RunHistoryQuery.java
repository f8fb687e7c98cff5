package io.timedjobs.scheduler.jdbc.history;

import java.time.Instant;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. Which records {@link RunHistory#find(RunHistoryQuery)} and {@link
 * RunHistory#page(RunHistoryQuery)} return: every condition that is set must hold; at most {@link
 * #limit()} of them. Start from {@link #all()} and narrow it.
 *
 * <p>Outcomes and skip reasons are one condition: a record meets it when its outcome is one of
 * {@link #outcomes()} or its skip reason one of {@link #skipReasons()} (so "the failures and the
 * pauses" is {@code outcome(FAILED).skipReason(PAUSED)}); when both are empty, any record does.
 *
 * <p>Two windows: {@link #from()}/{@link #to()} bound when a run started (for a skip: when it was
 * first recorded); {@link #firesFrom()}/{@link #firesTo()} bound the nominal fires a record covers:
 * a record meets them when one of its fires, from {@link RunRecord#fireAt()} to {@link
 * RunRecord#fireUntil()} both included, lies at or after {@code firesFrom} and before {@code
 * firesTo}. So a pause from 02:00 to 04:00 is found by a window from 03:00 to 03:01.
 *
 * @param job only this clustered job's records, or any
 * @param task only this durable task handler's executions, or any
 * @param instance only records of this instance, or any
 * @param outcomes only records that ended one of these ways; see the class comment
 * @param from only runs started at or after this instant, or any
 * @param to only runs started before this instant, or any
 * @param limit at most this many records
 * @param skipReasons only skips for one of these reasons; see the class comment
 * @param firesFrom only records covering a nominal fire at or after this instant, or any
 * @param firesTo only records covering a nominal fire before this instant, or any
 * @param cursor only records whose id is below this one (the {@link RunHistoryPage#nextCursor()}
 *     of the page before), or any
 */
public record RunHistoryQuery(
        @Nullable String job,
        @Nullable String task,
        @Nullable String instance,
        Set<RunOutcome> outcomes,
        @Nullable Instant from,
        @Nullable Instant to,
        int limit,
        Set<SkipReason> skipReasons,
        @Nullable Instant firesFrom,
        @Nullable Instant firesTo,
        @Nullable Long cursor) {

    /** The default limit. */
    public static final int DEFAULT_LIMIT = 100;

    /** The highest limit: a page of more would be read in one go. */
    public static final int MAX_LIMIT = 10_000;

    public RunHistoryQuery {
        outcomes = Set.copyOf(outcomes);
        skipReasons = Set.copyOf(skipReasons);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be from 1 to " + MAX_LIMIT + ", got " + limit);
        }
        if (job != null && task != null) {
            throw new IllegalArgumentException("A record is a job's run or a task's execution: set job or task,"
                    + " not both (job " + job + ", task " + task + ")");
        }
        if (cursor != null && cursor < 1) {
            throw new IllegalArgumentException("A cursor is a record's id, 1 or more; got " + cursor);
        }
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("The window's start " + from + " is not before its end " + to);
        }
        if (firesFrom != null && firesTo != null && !firesFrom.isBefore(firesTo)) {
            throw new IllegalArgumentException(
                    "The fires' window's start " + firesFrom + " is not before its end " + firesTo);
        }
    }

    /** As the canonical constructor, with no skip reason, fire window nor cursor. */
    public RunHistoryQuery(
            @Nullable String job,
            @Nullable String task,
            @Nullable String instance,
            Set<RunOutcome> outcomes,
            @Nullable Instant from,
            @Nullable Instant to,
            int limit) {
        this(job, task, instance, outcomes, from, to, limit, Set.of(), null, null, null);
    }

    /** Every record, up to {@link #DEFAULT_LIMIT}. */
    public static RunHistoryQuery all() {
        return new RunHistoryQuery(null, null, null, Set.of(), null, null, DEFAULT_LIMIT);
    }

    public RunHistoryQuery job(String job) {
        return new RunHistoryQuery(
                Objects.requireNonNull(job),
                task,
                instance,
                outcomes,
                from,
                to,
                limit,
                skipReasons,
                firesFrom,
                firesTo,
                cursor);
    }

    public RunHistoryQuery task(String handler) {
        return new RunHistoryQuery(
                job,
                Objects.requireNonNull(handler),
                instance,
                outcomes,
                from,
                to,
                limit,
                skipReasons,
                firesFrom,
                firesTo,
                cursor);
    }

    public RunHistoryQuery instance(String instance) {
        return new RunHistoryQuery(
                job,
                task,
                Objects.requireNonNull(instance),
                outcomes,
                from,
                to,
                limit,
                skipReasons,
                firesFrom,
                firesTo,
                cursor);
    }

    /** Only records that ended one of these ways (or skips of {@link #skipReasons()}). */
    public RunHistoryQuery outcome(RunOutcome first, RunOutcome... more) {
        return new RunHistoryQuery(
                job, task, instance, EnumSet.of(first, more), from, to, limit, skipReasons, firesFrom, firesTo, cursor);
    }

    /**
     * Only runs that did not end well: that threw ({@link RunOutcome#FAILED}, {@link
     * RunOutcome#RETRIED}) or whose instance died before their end ({@link RunOutcome#ABANDONED}).
     */
    public RunHistoryQuery failures() {
        return outcome(RunOutcome.FAILED, RunOutcome.RETRIED, RunOutcome.ABANDONED);
    }

    /** Only skips for one of these reasons (or records of {@link #outcomes()}). */
    public RunHistoryQuery skipReason(SkipReason first, SkipReason... more) {
        return new RunHistoryQuery(
                job, task, instance, outcomes, from, to, limit, EnumSet.of(first, more), firesFrom, firesTo, cursor);
    }

    /** Only skips, for any reason: {@link RunOutcome#SKIPPED}. */
    public RunHistoryQuery skips() {
        return outcome(RunOutcome.SKIPPED);
    }

    public RunHistoryQuery from(Instant from) {
        return new RunHistoryQuery(
                job,
                task,
                instance,
                outcomes,
                Objects.requireNonNull(from),
                to,
                limit,
                skipReasons,
                firesFrom,
                firesTo,
                cursor);
    }

    public RunHistoryQuery to(Instant to) {
        return new RunHistoryQuery(
                job,
                task,
                instance,
                outcomes,
                from,
                Objects.requireNonNull(to),
                limit,
                skipReasons,
                firesFrom,
                firesTo,
                cursor);
    }

    /** Only records covering a nominal fire at or after this instant; see the class comment. */
    public RunHistoryQuery firesFrom(Instant firesFrom) {
        return new RunHistoryQuery(
                job,
                task,
                instance,
                outcomes,
                from,
                to,
                limit,
                skipReasons,
                Objects.requireNonNull(firesFrom),
                firesTo,
                cursor);
    }

    /** Only records covering a nominal fire before this instant; see the class comment. */
    public RunHistoryQuery firesTo(Instant firesTo) {
        return new RunHistoryQuery(
                job,
                task,
                instance,
                outcomes,
                from,
                to,
                limit,
                skipReasons,
                firesFrom,
                Objects.requireNonNull(firesTo),
                cursor);
    }

    public RunHistoryQuery limit(int limit) {
        return new RunHistoryQuery(
                job, task, instance, outcomes, from, to, limit, skipReasons, firesFrom, firesTo, cursor);
    }

    /**
     * The page after the one whose {@link RunHistoryPage#nextCursor()} this is: only records written
     * before it (a lower id).
     */
    public RunHistoryQuery cursor(long cursor) {
        return new RunHistoryQuery(
                job, task, instance, outcomes, from, to, limit, skipReasons, firesFrom, firesTo, cursor);
    }
}
