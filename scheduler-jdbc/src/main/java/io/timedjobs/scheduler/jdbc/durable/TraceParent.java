package io.timedjobs.scheduler.jdbc.durable;

import org.jspecify.annotations.Nullable;

/**
 * Stateless; any thread. Checks a W3C {@code traceparent} value before it is stored with a task: the
 * column holds exactly that format (version 00, 55 characters), so any other propagation format, or
 * a value cut or garbled on the way, is dropped rather than stored and misread at the run.
 */
final class TraceParent {

    /** The length of a version 00 {@code traceparent}: {@code 00-<32 hex>-<16 hex>-<2 hex>}. */
    static final int LENGTH = 55;

    private TraceParent() {}

    /** Returns {@code value} when it is a valid version 00 {@code traceparent}, else null. */
    static @Nullable String orNull(@Nullable String value) {
        if (value == null || value.length() != LENGTH || !value.startsWith("00-")) {
            return null;
        }
        for (int i = 3; i < LENGTH; i++) {
            char c = value.charAt(i);
            boolean dash = i == 35 || i == 52;
            if (dash ? c != '-' : !isLowerHex(c)) {
                return null;
            }
        }
        // all-zero trace or span ids are invalid by the W3C recommendation
        if (value.regionMatches(3, "00000000000000000000000000000000", 0, 32)
                || value.regionMatches(36, "0000000000000000", 0, 16)) {
            return null;
        }
        return value;
    }

    private static boolean isLowerHex(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
}
