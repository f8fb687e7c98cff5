package io.timedjobs.scheduler.jdbc.durable;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. Which durable tasks {@link DurableTasks#find(DurableTaskQuery)} returns: every
 * condition that is set must hold; rows come earliest due first, at most {@link #limit()} of them.
 * Start from {@link #all()} and narrow it.
 *
 * @param handler only this handler's tasks, or any
 * @param key only tasks with this key, or any
 * @param state only tasks in this state, or any
 * @param dueFrom only tasks due at or after this instant, or any
 * @param dueBefore only tasks due before this instant, or any
 * @param limit at most this many rows
 */
public record DurableTaskQuery(
        @Nullable String handler,
        @Nullable String key,
        @Nullable DurableTaskState state,
        @Nullable Instant dueFrom,
        @Nullable Instant dueBefore,
        int limit) {

    /** The default limit: enough to inspect, not enough to load a whole table by accident. */
    public static final int DEFAULT_LIMIT = 1000;

    public DurableTaskQuery {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
    }

    /** Every task, up to {@link #DEFAULT_LIMIT}. */
    public static DurableTaskQuery all() {
        return new DurableTaskQuery(null, null, null, null, null, DEFAULT_LIMIT);
    }

    public DurableTaskQuery handler(String handler) {
        return new DurableTaskQuery(Objects.requireNonNull(handler), key, state, dueFrom, dueBefore, limit);
    }

    public DurableTaskQuery key(String key) {
        return new DurableTaskQuery(handler, Objects.requireNonNull(key), state, dueFrom, dueBefore, limit);
    }

    public DurableTaskQuery state(DurableTaskState state) {
        return new DurableTaskQuery(handler, key, Objects.requireNonNull(state), dueFrom, dueBefore, limit);
    }

    public DurableTaskQuery dueFrom(Instant dueFrom) {
        return new DurableTaskQuery(handler, key, state, Objects.requireNonNull(dueFrom), dueBefore, limit);
    }

    public DurableTaskQuery dueBefore(Instant dueBefore) {
        return new DurableTaskQuery(handler, key, state, dueFrom, Objects.requireNonNull(dueBefore), limit);
    }

    public DurableTaskQuery limit(int limit) {
        return new DurableTaskQuery(handler, key, state, dueFrom, dueBefore, limit);
    }
}
