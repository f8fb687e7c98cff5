package io.timedjobs.scheduler.jdbc.durable;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. One durable task as its row stands, for inspection: what the query API of
 * {@link DurableTasks} returns.
 *
 * @param id the task's id, stable for the life of its (handler, key)
 * @param handler the handler's name
 * @param key the task's key within its handler
 * @param payload the stored payload text (JSON or a plain String), or null
 * @param schedule the recurring schedule ({@link DurableSchedule#toString()}), or null for a one-off task
 * @param fireAt the instant it was scheduled for, on the database's clock
 * @param dueAt when it is due to start (a retry's backoff moves it past fireAt)
 * @param state where it is in its life
 * @param attempts how many times it was started since it was last scheduled
 * @param lastError the message of its last failure, or null
 * @param claimedBy the instance that holds its claim, or null
 */
public record DurableTaskInfo(
        long id,
        String handler,
        String key,
        @Nullable String payload,
        @Nullable String schedule,
        Instant fireAt,
        Instant dueAt,
        DurableTaskState state,
        int attempts,
        @Nullable String lastError,
        @Nullable String claimedBy) {}
