package io.timedjobs.scheduler.jdbc.durable;

import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. Used by {@link DurableTasks} only: encodes a payload for its handler and
 * refuses, before anything is written, one the handler could not read back as its declared payload
 * type. Without this check a wrong payload (an Integer, a Map, a Thread written as 14 KB of JSON)
 * would be accepted, then fail every attempt at run time.
 */
final class PayloadCheck {

    private final PayloadCodec codec;

    PayloadCheck(PayloadCodec codec) {
        this.codec = codec;
    }

    /**
     * Returns the stored text of a payload for {@code handler}: a String as it is, anything else as the
     * codec writes it, once it is known to read back as the handler's payload type.
     *
     * @throws IllegalArgumentException naming the task, the declared and the given type when it would not,
     *     or naming the task and its handler for a null payload the handler does not accept
     */
    @Nullable
    String encode(String name, String key, DurableTaskHandler<?> handler, @Nullable Object payload) {
        Class<?> type = handler.payloadType();
        if (payload == null) {
            if (!handler.acceptsNullPayload()) {
                throw new IllegalArgumentException("Durable task " + name + "/" + key + ": handler '" + name
                        + "' reads payloads as " + type.getName() + " and accepts no null payload; give a payload,"
                        + " or make the handler's acceptsNullPayload() return true");
            }
            return null;
        }
        if (payload instanceof String text) {
            if (type != String.class) {
                // stored as is, read as JSON of the type: pre-written JSON must be that
                readBack(name, key, type, text, String.class);
            }
            return text;
        }
        String text;
        try {
            text = codec.write(payload);
        } catch (IllegalArgumentException e) {
            if (type.isInstance(payload)) {
                throw e;
            }
            throw new IllegalArgumentException(
                    wrongType(name, key, type, payload.getClass()) + "; " + e.getMessage(), e);
        }
        if (!type.isInstance(payload)) {
            throw new IllegalArgumentException(wrongType(name, key, type, payload.getClass()));
        }
        Object back = readBack(name, key, type, text, payload.getClass());
        if (!payload.equals(back) && definesEquality(payload.getClass())) {
            throw new IllegalArgumentException("Durable task " + name + "/" + key + ": a payload of type "
                    + payload.getClass().getName() + " does not read back equal as " + type.getName()
                    + ", the payload type of handler '" + name + "' (a property the mapper writes but does not read,"
                    + " or reads differently)");
        }
        return text;
    }

    /**
     * Refuses a stored payload that does not read as the handler's payload type (for a reschedule,
     * which keeps the payload).
     */
    void checkStored(String name, String key, DurableTaskHandler<?> handler, @Nullable String payload) {
        Class<?> type = handler.payloadType();
        if (payload != null && type != String.class) {
            readBack(name, key, type, payload, String.class);
        }
    }

    private Object readBack(String name, String key, Class<?> type, String text, Class<?> given) {
        try {
            return codec.read(text, type);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Durable task " + name + "/" + key + ": a payload given as " + given.getName()
                            + " could not be read back as " + type.getName() + ", the payload type of handler '"
                            + name + "': " + e.getMessage(),
                    e);
        }
    }

    private static String wrongType(String name, String key, Class<?> type, Class<?> given) {
        return "Durable task " + name + "/" + key + ": handler '" + name + "' reads payloads as " + type.getName()
                + ", but the payload given is a " + given.getName();
    }

    /** Whether the type's equality is its own (a record, a value class), not Object's identity. */
    private static boolean definesEquality(Class<?> type) {
        try {
            return type.getMethod("equals", Object.class).getDeclaringClass() != Object.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
