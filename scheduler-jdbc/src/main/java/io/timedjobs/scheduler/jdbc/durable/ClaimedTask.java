package io.timedjobs.scheduler.jdbc.durable;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. A task as one claim returned it: what the in-memory engine needs to start it
 * at its due time, and the version that fences its start and its completion.
 *
 * @param id the task's id
 * @param handler the handler's name
 * @param key the task's key
 * @param payload the stored payload text, or null
 * @param schedule the stored recurring schedule, or null for a one-off task
 * @param fireAt the nominal instant, on the database's clock
 * @param dueAt when to start it (a retry's backoff moves it past fireAt), on the database's clock
 * @param attempts how many times it was started before this claim
 * @param version the claim version that this claim set
 * @param traceParent the W3C {@code traceparent} of the call that scheduled it, or null
 */
record ClaimedTask(
        long id,
        String handler,
        String key,
        @Nullable String payload,
        @Nullable String schedule,
        Instant fireAt,
        Instant dueAt,
        int attempts,
        long version,
        @Nullable String traceParent) {}
