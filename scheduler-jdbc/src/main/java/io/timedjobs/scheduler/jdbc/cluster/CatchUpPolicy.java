package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. What a clustered job does with the fires that fell while no instance ran
 * it (every instance down, or the database away), as declared with {@link
 * io.timedjobs.scheduler.jdbc.CatchUp} or the keys {@code timed-jobs.cluster.jobs[<job>].catch-up.*}.
 *
 * <p>{@link Policy#SKIP}, the default, is the behaviour of jobs without a policy: missed fires are
 * not run. {@link Policy#ONCE} runs the latest missed fire once, for all of them; {@link Policy#EACH}
 * runs each missed fire, oldest first, each with its own nominal instant ({@link
 * ClusteredJobs#currentFire()}). Both look back at most {@link #window()} from the moment an
 * instance plans the catch-up, and {@code EACH} runs at most {@link #maxFires()} of them (the
 * latest ones): a month of downtime does not start a storm. The fires not run are skipped on
 * purpose, and the job's watermark passes them (see {@link JobSql#advanceWatermark()}).
 *
 * @param mode what to do with missed fires
 * @param window how far back a missed fire may lie to be run; positive
 * @param maxFires the most missed fires {@code EACH} runs; positive ({@code ONCE} runs one)
 */
public record CatchUpPolicy(Policy mode, Duration window, int maxFires) {

    /** Window of a declaration that gives none. */
    public static final Duration DEFAULT_WINDOW = Duration.ofDays(1);

    /** Most fires {@code EACH} runs when a declaration gives no maximum. */
    public static final int DEFAULT_MAX_FIRES = 24;

    /** Missed fires are not run: the behaviour of every job without a declaration. */
    public static final CatchUpPolicy SKIP = new CatchUpPolicy(Policy.SKIP, DEFAULT_WINDOW, DEFAULT_MAX_FIRES);

    /**
     * What the properties say of one job's catch-up, each part optional: a part given overrides the
     * annotation's (see {@link #resolve}).
     *
     * @param policy {@code skip}, {@code once} or {@code each}, any case
     * @param window how far back a missed fire may lie
     * @param maxFires the most missed fires {@code EACH} runs
     */
    public record Settings(
            @Nullable String policy,
            @Nullable Duration window,
            @Nullable Integer maxFires) {}

    public CatchUpPolicy {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("A catch-up window must be positive, was " + window);
        }
        if (maxFires < 1) {
            throw new IllegalArgumentException("A catch-up maximum count must be at least 1, was " + maxFires);
        }
    }

    /** Whether missed fires are run at all. */
    public boolean catchesUp() {
        return mode != Policy.SKIP;
    }

    /**
     * Returns the policy of job {@code job} from its annotation's attributes (null for none) and its
     * properties (null for none), the properties winning part by part: an operator can change a
     * deployed job's catch-up without a build.
     *
     * @throws IllegalArgumentException naming the job and the part at fault
     */
    public static CatchUpPolicy resolve(
            String job,
            @Nullable Policy annotatedMode,
            @Nullable String annotatedWindow,
            int annotatedMaxFires,
            @Nullable Settings settings) {
        Policy mode = annotatedMode == null ? Policy.SKIP : annotatedMode;
        Duration window = DEFAULT_WINDOW;
        int maxFires = annotatedMode == null ? DEFAULT_MAX_FIRES : annotatedMaxFires;
        if (annotatedWindow != null && !annotatedWindow.isBlank()) {
            try {
                window = Duration.parse(annotatedWindow.trim());
            } catch (DateTimeParseException ex) {
                throw new IllegalArgumentException(
                        "@CatchUp of clustered job " + job + ": window '" + annotatedWindow
                                + "' is not an ISO-8601 duration such as PT6H",
                        ex);
            }
        }
        if (settings != null) {
            if (settings.policy() != null) {
                mode = parseMode(job, settings.policy());
            }
            if (settings.window() != null) {
                window = settings.window();
            }
            if (settings.maxFires() != null) {
                maxFires = settings.maxFires();
            }
        }
        try {
            return new CatchUpPolicy(mode, window, maxFires);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Catch-up of clustered job " + job + ": " + ex.getMessage(), ex);
        }
    }

    private static Policy parseMode(String job, String text) {
        try {
            return Policy.valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(
                    "timed-jobs.cluster.jobs[" + job + "].catch-up.policy is '" + text + "', not one of "
                            + Arrays.toString(Policy.values()).toLowerCase(Locale.ROOT),
                    ex);
        }
    }

    /** Returns how many of the missed fires within the window run: the latest ones. */
    int keep() {
        return switch (mode) {
            case SKIP -> 0;
            case ONCE -> 1;
            case EACH -> maxFires;
        };
    }

    @Override
    public String toString() {
        return switch (mode) {
            case SKIP -> "skip";
            case ONCE -> "once within " + window;
            case EACH -> "each within " + window + ", at most " + maxFires;
        };
    }
}
