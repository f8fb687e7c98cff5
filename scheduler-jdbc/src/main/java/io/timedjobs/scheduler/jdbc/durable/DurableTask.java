package io.timedjobs.scheduler.jdbc.durable;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. One execution of a durable task, as its handler receives it.
 *
 * <p><b>NOTE:</b> durable tasks run at least once: an instance that dies after the handler's work but
 * before its completion is recorded leaves the task to be run again elsewhere. {@link
 * #idempotencyKey()} is the same for every run of one task (and of one fire of a recurring task), so a
 * handler can recognise a repeat.
 *
 * @param id the task's id; survives replacement and rescheduling of its (handler, key)
 * @param handler the handler's name
 * @param key the task's key within its handler
 * @param payload the payload, read as the handler's declared type; null when none was given
 * @param fireAt the instant it was scheduled for, on the database's clock (retries keep it)
 * @param attempt which attempt this is, from 1
 * @param recurring whether the task is recurring
 * @param <T> the handler's payload type
 */
public record DurableTask<T>(
        long id, String handler, String key, @Nullable T payload, Instant fireAt, int attempt, boolean recurring) {

    /**
     * The key under which a handler recognises a repeated run: the task id, and for a recurring task
     * the id and the fire ({@code id@epochMillis}).
     */
    public String idempotencyKey() {
        return recurring ? id + "@" + fireAt.toEpochMilli() : Long.toString(id);
    }
}
