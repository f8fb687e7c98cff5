package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.support.CronExpression;

/**
 * Immutable; any thread. When a recurring durable task fires: a cron expression in a zone, or a fixed
 * period. It is stored in the task's row as its {@link #toString()} text ({@code cron:<expression>@<zone>}
 * or {@code every:<ISO-8601 duration>}) and read back with {@link #parse(String)}, so every instance
 * computes the same fires.
 *
 * <p>Fires missed while no instance ran: without a catch-up policy, the fire the task was waiting for
 * runs once, late, and the next fire is the first one after the instant that run ended. With {@link
 * #catchUp(CatchUpPolicy)}, the policy decides which run ({@link CatchUpPolicy#missedFires}); it is
 * stored with the schedule's text ({@code <schedule>|catch-up:<policy>,<window>,<max fires>}), which
 * instances of earlier releases cannot read: declare it once every instance runs this one.
 *
 * <p>The task's row is its own watermark: its {@code fire_at} is the next nominal fire to run, and it
 * moves only by a completion fenced by the claim version (a compare-and-set), so each nominal fire
 * runs at most once however many instances start together. A fire is missed when a later fire of
 * the schedule is due already as it starts (the instances were down, or the database away, for
 * longer than a period). The instance that starts a missed fire the policy does not run moves the
 * row ({@link #skipTo}), by that same fenced completion and without running the handler, to the fire
 * the policy runs next, or to the first fire after now; that fire is claimed and run like any other.
 */
public final class DurableSchedule {

    private static final String CRON = "cron:";
    private static final String EVERY = "every:";
    private static final String CATCH_UP = "|catch-up:";

    private final String text;
    private final @Nullable CronExpression cron;
    private final ZoneId zone;
    private final Duration period;
    private final @Nullable CatchUpPolicy catchUp;

    private DurableSchedule(String text, @Nullable CronExpression cron, ZoneId zone, Duration period) {
        this(text, cron, zone, period, null);
    }

    private DurableSchedule(
            String text, @Nullable CronExpression cron, ZoneId zone, Duration period, @Nullable CatchUpPolicy catchUp) {
        this.text = text;
        this.cron = cron;
        this.zone = zone;
        this.period = period;
        this.catchUp = catchUp;
    }

    /**
     * Returns this schedule with a policy for the fires missed while no instance ran the task: the
     * policy decides which of them run (see {@link CatchUpPolicy}), each with its own nominal
     * instant ({@link DurableTask#fireAt()}).
     */
    public DurableSchedule catchUp(CatchUpPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        String base = catchUp == null ? text : text.substring(0, text.indexOf(CATCH_UP));
        String stored = base + CATCH_UP + policy.mode().name().toLowerCase(java.util.Locale.ROOT) + ","
                + policy.window() + "," + policy.maxFires();
        return new DurableSchedule(stored, cron, zone, period, policy);
    }

    /** Returns the policy for missed fires, or null for the behaviour of a schedule without one. */
    public @Nullable CatchUpPolicy catchUpPolicy() {
        return catchUp;
    }

    /**
     * A Spring cron expression (six fields, seconds first) evaluated in a zone.
     *
     * @throws IllegalArgumentException when the expression does not parse
     */
    public static DurableSchedule cron(String expression, ZoneId zone) {
        Objects.requireNonNull(expression, "expression");
        Objects.requireNonNull(zone, "zone");
        CronExpression parsed = CronExpression.parse(expression);
        return new DurableSchedule(CRON + expression + "@" + zone.getId(), parsed, zone, Duration.ZERO);
    }

    /**
     * A fixed period between fires, the first one period after scheduling.
     *
     * @throws IllegalArgumentException when the period is not positive
     */
    public static DurableSchedule every(Duration period) {
        Objects.requireNonNull(period, "period");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("A recurring durable task needs a positive period, got " + period);
        }
        return new DurableSchedule(EVERY + period, null, ZoneId.of("UTC"), period);
    }

    /**
     * Reads a schedule back from its stored text.
     *
     * @throws IllegalArgumentException when the text is not a schedule
     */
    public static DurableSchedule parse(String text) {
        int policyAt = text.indexOf(CATCH_UP);
        if (policyAt >= 0) {
            String[] parts = text.substring(policyAt + CATCH_UP.length()).split(",", -1);
            if (parts.length != 3) {
                throw new IllegalArgumentException("Not a durable task schedule: '" + text + "'; expected " + CATCH_UP
                        + "<policy>,<window>,<max fires> after the schedule");
            }
            CatchUpPolicy policy;
            try {
                policy = CatchUpPolicy.resolve(
                        text,
                        null,
                        null,
                        CatchUpPolicy.DEFAULT_MAX_FIRES,
                        new CatchUpPolicy.Settings(parts[0], Duration.parse(parts[1]), Integer.valueOf(parts[2])));
            } catch (DateTimeException | NumberFormatException e) {
                throw new IllegalArgumentException(
                        "Not a durable task schedule: '" + text + "' (" + e.getMessage() + ")", e);
            }
            return parse(text.substring(0, policyAt)).catchUp(policy);
        }
        try {
            if (text.startsWith(CRON)) {
                int at = text.lastIndexOf('@');
                if (at > CRON.length()) {
                    return cron(text.substring(CRON.length(), at), ZoneId.of(text.substring(at + 1)));
                }
            } else if (text.startsWith(EVERY)) {
                return every(Duration.parse(text.substring(EVERY.length())));
            }
        } catch (DateTimeException e) {
            throw new IllegalArgumentException(
                    "Not a durable task schedule: '" + text + "' (" + e.getMessage() + ")", e);
        }
        throw new IllegalArgumentException(
                "Not a durable task schedule: '" + text + "'; expected cron:<expression>@<zone> or every:<duration>");
    }

    /**
     * The first fire strictly after {@code after}, following the previous fire {@code previous}: for a
     * fixed period, {@code previous + n * period} for the smallest such n; for cron, the next match.
     */
    public Instant next(Instant previous, Instant after) {
        if (cron == null) {
            Instant next = previous.plus(period);
            if (!next.isAfter(after)) {
                long behind = Duration.between(previous, after).toNanos() / period.toNanos();
                next = previous.plus(period.multipliedBy(behind + 1));
            }
            return next;
        }
        ZonedDateTime next = cron.next(ZonedDateTime.ofInstant(after, zone));
        if (next == null) {
            throw new IllegalStateException("Cron expression " + text + " has no fire after " + after);
        }
        return next.toInstant();
    }

    /**
     * Returns the fire to move the task to without running {@code fireAt}, or null to run it: for a
     * schedule without a policy, or a fire that is not missed, always null.
     */
    @Nullable
    Instant skipTo(Instant fireAt, Instant now) {
        CatchUpPolicy policy = catchUp;
        if (policy == null || next(fireAt, fireAt).isAfter(now)) {
            return null;
        }
        // the task's fires from fireAt on: fireAt itself is the first missed one
        UnaryOperator<@Nullable Instant> fires = after -> after.isBefore(fireAt) ? fireAt : next(fireAt, after);
        List<Instant> run = policy.missedFires(fireAt.minusNanos(1), now.plusNanos(1), now, fires)
                .run();
        Instant target = run.isEmpty() ? next(fireAt, now) : run.get(0);
        return target.equals(fireAt) ? null : target;
    }

    /**
     * Returns the fire after {@code fireAt} ran: for a policy that {@linkplain
     * CatchUpPolicy#stepsThroughEachFire steps through each fire}, the schedule's next nominal fire,
     * due or not (its start applies the policy again); else null for the usual one, the first after
     * the run.
     */
    @Nullable
    Instant nextAfterRun(Instant fireAt) {
        CatchUpPolicy policy = catchUp;
        return policy != null && policy.stepsThroughEachFire() ? next(fireAt, fireAt) : null;
    }

    /** The first fire of a schedule set up at {@code now}. */
    public Instant first(Instant now) {
        return next(now, now);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof DurableSchedule that && text.equals(that.text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** The stored form. */
    @Override
    public String toString() {
        return text;
    }
}
