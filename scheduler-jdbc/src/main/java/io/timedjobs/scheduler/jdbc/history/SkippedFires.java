package io.timedjobs.scheduler.jdbc.history;

import java.time.Instant;
import java.util.Objects;

/**
 * Not API: what the clustered jobs hand to {@link RunHistory#recordSkip} when nominal fires of a job
 * did not run. Immutable; any thread.
 *
 * @param job the clustered job
 * @param first the first nominal fire skipped
 * @param last the last nominal fire skipped ({@code first} for one)
 * @param fires how many nominal fires that is, 1 or more
 * @param reason why they did not run
 * @param instance the instance that noticed
 */
public record SkippedFires(String job, Instant first, Instant last, long fires, SkipReason reason, String instance) {

    public SkippedFires {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(first, "first");
        Objects.requireNonNull(last, "last");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(instance, "instance");
        if (fires < 1 || last.isBefore(first)) {
            throw new IllegalArgumentException(
                    "Skipped fires from " + first + " to " + last + " cannot be " + fires + " fires");
        }
    }

    /** One skipped fire. */
    public static SkippedFires one(String job, Instant fire, SkipReason reason, String instance) {
        return new SkippedFires(job, fire, fire, 1, reason, instance);
    }
}
