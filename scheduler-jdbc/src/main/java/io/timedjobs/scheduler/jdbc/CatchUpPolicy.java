package io.timedjobs.scheduler.jdbc;

import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Immutable; any thread. The one home of catch-up: what runs of the fires that fell while no
 * instance ran a clustered job or a recurring durable task (every instance down, or the database
 * away). A clustered job declares it with {@link CatchUp} or the keys {@code
 * timed-jobs.cluster.jobs[<job>].catch-up.*}; a recurring durable task with {@code
 * DurableSchedule.catchUp(policy)}. Both ask {@link #missedFires} which of their missed fires run;
 * each keeps its own watermark (the job's row, the task's row) so that a fire runs once across the
 * instances.
 *
 * <p>{@link Policy#SKIP} runs none of them. {@link Policy#ONCE} runs the latest missed fire once, for
 * all of them; {@link Policy#EACH} runs each missed fire, oldest first, each with its own nominal
 * instant. Both look back at most {@link #window()} from the moment an instance plans the
 * catch-up, and {@code EACH} runs at most {@link #maxFires()} of them (the latest ones): a month of
 * downtime does not start a storm. The fires not run are skipped on purpose, and the watermark
 * passes them.
 *
 * <p><b>NOTE: the default.</b> Without a declaration there is no catch-up: no missed fire is run on
 * its account. A clustered job keeps no fire ahead of time, so nothing of the downtime runs (the
 * same as {@link #SKIP}). A recurring durable task's row already holds the fire it was waiting for,
 * a task handed to the store, which runs once, late, as any due durable task does; the fires after
 * it are not run (declaring {@code SKIP} drops that one too). A declaration that leaves out its
 * window or maximum gets {@link #DEFAULT_WINDOW} (one day) and {@link #DEFAULT_MAX_FIRES} (24). None
 * of this is the core engine's {@code MisfirePolicy} (default {@code CATCH_UP}), which governs
 * something else: a fixed-rate task of a running scheduler that fell behind its own rhythm (a long
 * run, a stalled JVM); clustered jobs are scheduled by trigger, so it never applies to them.
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

    /**
     * The missed fires that run, oldest first, and whether the policy skips some missed fire (older
     * than the window, beyond the maximum count, or any under {@code SKIP}).
     */
    public record Missed(List<Instant> run, boolean skipsSome) {

        public Missed {
            run = List.copyOf(run);
        }
    }

    /**
     * Decides which missed fires run: of the fires {@code next} steps through after {@code after}
     * and before {@code before}, those within the window back from {@code now}, and of those the
     * latest one ({@code ONCE}) or the latest {@link #maxFires()} ({@code EACH}).
     *
     * @param after the watermark: the latest fire run or passed (exclusive)
     * @param before the first fire that is not missed (exclusive)
     * @param now the moment the catch-up is planned
     * @param next the schedule: the first nominal fire strictly after an instant, or null for none
     */
    public Missed missedFires(Instant after, Instant before, Instant now, UnaryOperator<@Nullable Instant> next) {
        if (mode == Policy.SKIP) {
            Instant first = next.apply(after);
            return new Missed(List.of(), first != null && first.isBefore(before));
        }
        Instant windowStart = now.minus(window);
        boolean windowCut = after.isBefore(windowStart);
        Missed kept = collect(windowCut ? windowStart.minusNanos(1) : after, before, next, true);
        return new Missed(kept.run(), windowCut || kept.skipsSome());
    }

    /**
     * Returns the first missed fires after a watermark that already passed the ones {@link
     * #missedFires} skips, oldest first, as many as the policy runs: instances that plan at
     * different moments then list the same fires.
     */
    public List<Instant> firstMissedFires(
            Instant after, Instant before, Instant now, UnaryOperator<@Nullable Instant> next) {
        Instant windowStart = now.minus(window);
        return collect(after.isBefore(windowStart) ? windowStart.minusNanos(1) : after, before, next, false)
                .run();
    }

    /**
     * Whether the fire to try after a missed one ran is the schedule's next nominal fire, due or not
     * ({@code EACH}: each runs in turn), rather than the first fire after now.
     */
    public boolean stepsThroughEachFire() {
        return mode == Policy.EACH;
    }

    /**
     * Collects as many of the fires {@code next} steps through, strictly between the bounds, as the
     * policy runs, oldest first: the latest ones, or the first ones.
     */
    private Missed collect(Instant after, Instant before, UnaryOperator<@Nullable Instant> next, boolean latestOnes) {
        int keep = keep();
        ArrayDeque<Instant> kept = new ArrayDeque<>();
        long count = 0;
        for (Instant fire = next.apply(after); fire != null && fire.isBefore(before); fire = next.apply(fire)) {
            count++;
            if (kept.size() == keep) {
                if (!latestOnes) {
                    break;
                }
                kept.pollFirst();
            }
            if (keep > 0) {
                kept.addLast(fire);
            }
        }
        return new Missed(List.copyOf(kept), count > kept.size());
    }

    /** Returns how many of the missed fires within the window run: the latest ones. */
    private int keep() {
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
