package io.timedjobs.scheduler.jdbc.history;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. What happened to a clustered job at an instant, as {@link
 * RunHistory#fateAt(String, Instant)} read it from the history.
 *
 * @param job the job
 * @param at the instant asked about
 * @param covering the records whose nominal fires, from {@link RunRecord#fireAt()} to {@link
 *     RunRecord#fireUntil()}, include {@code at}: its fate when {@code at} is a nominal fire (one
 *     record, but where two instances of different schema versions wrote one each); empty otherwise
 * @param before the latest record whose fires all lie before {@code at}, or null
 * @param after the earliest record whose fires all lie after {@code at}, or null
 */
public record FireFate(
        String job,
        Instant at,
        List<RunRecord> covering,
        @Nullable RunRecord before,
        @Nullable RunRecord after) {

    public FireFate {
        covering = List.copyOf(covering);
    }

    /** Whether the history holds a record of the fire at {@code at}. */
    public boolean known() {
        return !covering.isEmpty();
    }
}
