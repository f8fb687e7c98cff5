package io.timedjobs.scheduler.dashboard;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable, any thread: one search of the fates of fires, as the endpoint and the page take it
 * from their parameters. Every condition that is set must hold; fates come latest fire first.
 *
 * @param job only this repeating job's fates, or any
 * @param task only this durable task handler's executions, or any
 * @param instance only fates recorded by this instance, or any
 * @param outcomes only fates that ended one of these ways ({@link #OUTCOMES}), or skipped for one
 *     of {@code skipReasons}; both empty for any
 * @param skipReasons only fires skipped for one of these reasons ({@link #SKIP_REASONS}), or that
 *     ended one of the ways of {@code outcomes}
 * @param from only fires due at or after this instant, or any
 * @param to only fires due before this instant, or any
 * @param at instead of a page: the fate of {@code job}'s fire at this instant, or the nearest ones
 *     before and after it
 * @param limit at most this many fates, between 1 and {@value #MAX_LIMIT}
 * @param cursor where the page starts: the {@code next} of the page before; null for the first
 */
public record HistorySearch(
        @Nullable String job,
        @Nullable String task,
        @Nullable String instance,
        Set<String> outcomes,
        Set<String> skipReasons,
        @Nullable Instant from,
        @Nullable Instant to,
        @Nullable Instant at,
        int limit,
        @Nullable String cursor) {

    /** How a fire may end. */
    public static final List<String> OUTCOMES = List.of("SUCCEEDED", "FAILED", "RETRIED", "SKIPPED");

    /** Why a fire may not run: a local job's are PAUSED, STOPPING and STILL_RUNNING, a clustered job's any. */
    public static final List<String> SKIP_REASONS =
            List.of("PAUSED", "DATABASE_DOWN", "STILL_RUNNING", "SUPERSEDED", "STOPPING", "MISSED");

    /** Fates in a page unless the search says otherwise. */
    public static final int DEFAULT_LIMIT = 50;

    /** Fates in a page at most. */
    public static final int MAX_LIMIT = 500;

    public HistorySearch {
        outcomes = Set.copyOf(outcomes);
        skipReasons = Set.copyOf(skipReasons);
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", got " + limit);
        }
        if (job != null && task != null) {
            throw new IllegalArgumentException("Give job or task, not both (job " + job + ", task " + task + ")");
        }
        if (at != null && job == null) {
            throw new IllegalArgumentException("at asks for one job's fate at an instant: give job too");
        }
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("from (" + from + ") must be before to (" + to + ")");
        }
    }

    /** Any fate, the first page. */
    public static HistorySearch all() {
        return new HistorySearch(null, null, null, Set.of(), Set.of(), null, null, null, DEFAULT_LIMIT, null);
    }

    /** Only this job's fates. */
    public HistorySearch job(String name) {
        return new HistorySearch(name, task, instance, outcomes, skipReasons, from, to, at, limit, cursor);
    }

    /** At most this many. */
    public HistorySearch limit(int count) {
        return new HistorySearch(job, task, instance, outcomes, skipReasons, from, to, at, count, cursor);
    }

    /**
     * Reads a search from request parameters, each absent when null or blank.
     *
     * @param outcome comma-separated outcomes, any of {@link #OUTCOMES}
     * @param reason comma-separated skip reasons, any of {@link #SKIP_REASONS}
     * @param from ISO-8601 instant, such as {@code 2026-01-01T03:00:00Z}
     * @param limit a whole number between 1 and {@value #MAX_LIMIT}
     * @throws IllegalArgumentException naming the parameter that is wrong and what it takes
     */
    public static HistorySearch parse(
            @Nullable String job,
            @Nullable String task,
            @Nullable String instance,
            @Nullable String outcome,
            @Nullable String reason,
            @Nullable String from,
            @Nullable String to,
            @Nullable String at,
            @Nullable String limit,
            @Nullable String cursor) {
        return new HistorySearch(
                blankToNull(job),
                blankToNull(task),
                blankToNull(instance),
                words("outcome", outcome, OUTCOMES),
                words("reason", reason, SKIP_REASONS),
                instant("from", from),
                instant("to", to),
                instant("at", at),
                limit(limit),
                blankToNull(cursor));
    }

    /**
     * Refuses the other parameters beside {@code id}, which opens one record and takes none.
     *
     * @throws IllegalArgumentException naming those given
     */
    public static void requireAlone(String id, @Nullable String... others) {
        long given = Arrays.stream(others)
                .filter(other -> blankToNull(other) != null)
                .count();
        if (given > 0) {
            throw new IllegalArgumentException("id '" + id.strip()
                    + "' opens one record and takes no other parameter; give id alone, or search without it");
        }
    }

    /** The message of a 404 for an id no record has. */
    public static String noRecord(String id) {
        return "No record has id '" + id
                + "': the run history may have pruned it, or this instance's memory let it go (or restarted)";
    }

    private static @Nullable String blankToNull(@Nullable String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static Set<String> words(String parameter, @Nullable String value, List<String> allowed) {
        Set<String> out = new LinkedHashSet<>();
        if (blankToNull(value) == null) {
            return out;
        }
        for (String word : value.split(",")) {
            String upper = word.strip().toUpperCase(Locale.ROOT);
            if (!allowed.contains(upper)) {
                throw new IllegalArgumentException("Unknown " + parameter + " '" + word.strip() + "'; use any of "
                        + allowed + ", comma-separated");
            }
            out.add(upper);
        }
        return out;
    }

    private static @Nullable Instant instant(String parameter, @Nullable String value) {
        String text = blankToNull(value);
        if (text == null) {
            return null;
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    parameter + " '" + text + "' is not an ISO-8601 instant such as 2026-01-01T03:00:00Z", e);
        }
    }

    private static int limit(@Nullable String value) {
        String text = blankToNull(value);
        if (text == null) {
            return DEFAULT_LIMIT;
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "limit '" + text + "' is not a whole number between 1 and " + MAX_LIMIT, e);
        }
    }

    /**
     * Whether a fate with this outcome and skip reason passes the outcome and reason filters, one
     * condition as the run history takes it: its outcome is one of {@link #outcomes()} or its reason
     * one of {@link #skipReasons()}; any fate when both are empty.
     */
    boolean admits(String outcome, @Nullable String skipReason) {
        if (outcomes.isEmpty() && skipReasons.isEmpty()) {
            return true;
        }
        return outcomes.contains(outcome) || (skipReason != null && skipReasons.contains(skipReason));
    }

    @Override
    public String toString() {
        return "HistorySearch" + Arrays.asList(job, task, instance, outcomes, skipReasons, from, to, at, limit, cursor);
    }
}
