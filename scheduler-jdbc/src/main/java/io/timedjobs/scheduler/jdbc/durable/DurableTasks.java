package io.timedjobs.scheduler.jdbc.durable;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Thread-safe; the application's entry point. Schedules, reschedules, cancels and finds durable tasks
 * by (handler name, key).
 *
 * <p>Every call runs its statements on the application's {@code DataSource}, through the connection
 * of the caller's Spring-managed transaction when there is one: a task scheduled in a transaction that
 * rolls back never existed. Without a transaction each call commits on its own.
 *
 * <p><b>NOTE: scheduling a (handler, key) that exists replaces it</b>: payload, schedule and due time
 * are overwritten, attempts and last error cleared, and the task id survives. A claim another instance
 * holds on the old form is void: that instance will not start it (a run already under way finishes,
 * but its completion is refused and the new form runs at its own time).
 *
 * <p>Instants are absolute: an {@link Instant} is stored as given and fires when the database's clock
 * reaches it; a {@link Duration} is counted from this instance's {@link Clock}. An instance whose
 * clock is skewed from the database's therefore schedules delays early or late by the skew; the firing
 * itself follows the database's clock on every instance.
 *
 * <p>Payloads are checked where they enter: {@code schedule} refuses a payload its handler could
 * not read back as its {@linkplain DurableTaskHandler#payloadType() declared type} (see {@link
 * #schedule(String, String, Instant, Object)}), and {@code reschedule} one whose stored payload does
 * not read as that type, before anything is written. Both need the handler on this instance; a
 * reschedule for a handler that is not here is written unchecked, as the instance that runs it
 * reads it.
 */
public final class DurableTasks {

    private static final int KEY_LENGTH = 200;

    private final DurableTaskStore store;
    private final Map<String, DurableTaskHandler<?>> handlers;
    private final PayloadCheck payloads;
    private final Clock clock;
    private final LocalClaims localClaims;
    private final DurableScheduleObserver observer;

    DurableTasks(
            DurableTaskStore store,
            Map<String, DurableTaskHandler<?>> handlers,
            PayloadCodec codec,
            Clock clock,
            DurableScheduleObserver observer,
            LocalClaims localClaims) {
        this.store = store;
        this.handlers = Map.copyOf(handlers);
        this.payloads = new PayloadCheck(codec);
        this.clock = clock;
        this.localClaims = localClaims;
        this.observer = observer;
    }

    /**
     * Schedules a one-off task at an instant, or replaces the one with the same (handler, key).
     *
     * @param handler a registered handler's name
     * @param key the task's key within its handler; not blank, at most 200 characters (Unicode code
     *     points: an emoji counts as one)
     * @param at when it is due
     * @param payload null, when the handler {@linkplain DurableTaskHandler#acceptsNullPayload() accepts
     *     none} (a String handler does); a String, stored as is (for a handler whose payload type is not String, it
     *     must be JSON that reads as that type); or a value of the handler's payload type that the
     *     JSON mapper writes and reads back (equal, when the type defines equality)
     * @return the task's id, the same as before when it replaced a task
     * @throws IllegalArgumentException for an unknown handler, a blank or too long key, a null payload
     *     the handler does not accept, or a payload that is not of the handler's payload type or does
     *     not read back as it, naming the task, the declared type and the given type
     * @throws DurableTaskException when the database fails
     */
    public long schedule(String handler, String key, Instant at, @Nullable Object payload) {
        Objects.requireNonNull(at, "at");
        return write(handler, key, at, payload, null);
    }

    /** Schedules a one-off task after a delay counted from now; see {@link #schedule(String, String, Instant, Object)}. */
    public long schedule(String handler, String key, Duration delay, @Nullable Object payload) {
        Objects.requireNonNull(delay, "delay");
        return schedule(handler, key, clock.instant().plus(delay), payload);
    }

    /**
     * Schedules a recurring task, or replaces (changes) the one with the same (handler, key). Its first
     * fire is the schedule's first after now; each fire runs once across all instances.
     *
     * @return the task's id
     */
    public long scheduleRecurring(String handler, String key, DurableSchedule schedule, @Nullable Object payload) {
        Objects.requireNonNull(schedule, "schedule");
        return write(handler, key, schedule.first(clock.instant()), payload, schedule.toString());
    }

    /**
     * Moves an existing task (in any state, FAILED included) to a new due time, keeping its payload and
     * id, as a fresh task with no attempts; a claim on it is void.
     *
     * @return whether the task existed
     * @throws IllegalArgumentException for a blank or too long key, or, when the handler is on this
     *     instance, a stored payload that does not read as its payload type (nothing is changed)
     */
    public boolean reschedule(String handler, String key, Instant at) {
        Objects.requireNonNull(at, "at");
        checkKey(key);
        DurableTaskHandler<?> local = handler == null ? null : handlers.get(handler);
        if (local != null) {
            find(handler, key).ifPresent(task -> payloads.checkStored(handler, key, local, task.payload()));
        }
        try {
            OptionalLong id = store.reschedule(handler, key, at);
            id.ifPresent(rescheduled -> localClaims.scheduled(handler, rescheduled, at));
            return id.isPresent();
        } catch (DataAccessException e) {
            throw failure("reschedule", handler, key, e);
        }
    }

    /** Moves an existing task to a delay counted from now; see {@link #reschedule(String, String, Instant)}. */
    public boolean reschedule(String handler, String key, Duration delay) {
        Objects.requireNonNull(delay, "delay");
        return reschedule(handler, key, clock.instant().plus(delay));
    }

    /**
     * Removes a task in any state. One that another instance claimed will not start; one already
     * running finishes, and its completion is refused.
     *
     * @return whether the task existed
     */
    public boolean cancel(String handler, String key) {
        checkKey(key);
        try {
            boolean removed = store.cancel(handler, key);
            if (removed) {
                localClaims.cancelled(handler, key);
            }
            return removed;
        } catch (DataAccessException e) {
            throw failure("cancel", handler, key, e);
        }
    }

    /** The tasks that match a query, earliest due first. */
    public List<DurableTaskInfo> find(DurableTaskQuery query) {
        Objects.requireNonNull(query, "query");
        try {
            return store.query(query);
        } catch (DataAccessException e) {
            throw new DurableTaskException("Could not query durable tasks: " + e.getMessage(), e);
        }
    }

    /** The task with this (handler, key), if there is one. */
    public Optional<DurableTaskInfo> find(String handler, String key) {
        return find(DurableTaskQuery.all().handler(handler).key(key).limit(1)).stream()
                .findFirst();
    }

    private long write(String handler, String key, Instant due, @Nullable Object payload, @Nullable String schedule) {
        checkHandler(handler);
        checkKey(key);
        String text = payloads.encode(handler, key, handlers.get(handler), payload);
        return observer.observe(handler, key, traceParent -> {
            try {
                long id = store.upsert(handler, key, text, schedule, due, TraceParent.orNull(traceParent));
                localClaims.scheduled(handler, id, due);
                return id;
            } catch (DataAccessException e) {
                throw failure("schedule", handler, key, e);
            }
        });
    }

    private void checkHandler(String handler) {
        Objects.requireNonNull(handler, "handler");
        if (!handlers.containsKey(handler)) {
            throw new IllegalArgumentException("No durable task handler named '" + handler
                    + "' is registered on this instance; known handlers: " + handlers.keySet());
        }
    }

    private static void checkKey(@Nullable String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("A durable task needs a key that is not blank, got '" + key + "'");
        }
        // code points, as the VARCHAR column counts them: an emoji is one character, not two
        int length = key.codePointCount(0, key.length());
        if (length > KEY_LENGTH) {
            throw new IllegalArgumentException(
                    "A durable task key has at most " + KEY_LENGTH + " characters, got " + length);
        }
    }

    private static DurableTaskException failure(String what, String handler, String key, DataAccessException e) {
        return new DurableTaskException(
                "Could not " + what + " durable task " + handler + "/" + key + ": " + e.getMostSpecificCause(), e);
    }
}
