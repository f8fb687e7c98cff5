package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.spring.NamedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A clustered fixed-rate job; thread rule of {@link ClusteredJob}.
 *
 * <p>Its fires lie on one grid all instances share: {@code anchor + k * period}. The anchor is
 * written once, with the job's row, by the first instance that registers the job (its start time
 * plus the initial delay, on the database's clock); every later instance reads it. An instance
 * that starts, stops or restarts therefore never shifts the grid, and needs no write per fire to
 * agree on it: the fire record alone decides who runs each grid point. After a fire, the next is
 * the following grid point. When that point has passed already (a run longer than the period, a
 * thread held up), only the latest point reached is tried, late, and the ones before it are not:
 * a clustered job never catches up in a burst (after a run here, those it outlasted are written as
 * still running; see {@link PassedFires}). While the database is known to be away, the next
 * is the first point not in the past, and the points passed over are counted as skipped for it
 * ({@code DATABASE_DOWN}): fires that fall in an outage never run late after it. A point half a
 * horizon old is never tried either.
 *
 * <p>An instance's first fire is the latest grid point already reached, if it is less than half a
 * horizon old, and otherwise the next one. So the first instance runs the anchor itself, which is
 * a few milliseconds in the past by the time the trigger asks (a job without initial delay runs at
 * start-up, as with Spring's own scheduler), and an instance that joins later tries the point it
 * just missed: its record makes sure it runs once, and a point older than half a horizon, whose
 * record the database could soon prune, is never tried.
 */
final class FixedRateJob extends RecordedFireJob {

    private final Duration period;
    private final Duration initialDelay;
    private volatile @Nullable Instant anchor;

    public FixedRateJob(String name, Runnable task, JobContext context, Duration period, Duration initialDelay) {
        super(name, task, context);
        this.period = Objects.requireNonNull(period, "period");
        this.initialDelay = Objects.requireNonNull(initialDelay, "initialDelay");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be positive, was " + period);
        }
        define(JobDefinition.of("fixed-rate", period.toString(), null, initialDelay));
    }

    @Override
    protected @Nullable Instant proposedAnchor() {
        return context.clock().now().plus(initialDelay);
    }

    @Override
    protected boolean accept(JobStore.JobRow row) {
        Instant recorded = row.anchorAt();
        if (recorded != null && !recorded.equals(anchor)) {
            lastFire = null; // a new grid: its fires, not the old grid's, come next
        }
        anchor = recorded;
        return recorded != null;
    }

    @Override
    protected @Nullable Instant nextFire() {
        return steppedTo(nextGridPoint());
    }

    /** Returns the grid point to try next, as the class comment says. */
    private Instant nextGridPoint() {
        Instant grid = Objects.requireNonNull(anchor, "anchor");
        Instant now = context.clock().now();
        Instant oldest = now.minus(context.fireHorizon().dividedBy(2));
        Instant last = lastFire;
        if (last != null) {
            Instant next = last.plus(period);
            if (!next.isBefore(now)) {
                return next;
            }
            if (context.outages().inOutage()) {
                passedAccountedFor(); // the points passed over are DATABASE_DOWN, below
                Instant first = firstGridPointNotBefore(grid, period, now);
                long passed = Duration.between(next, first).toNanos() / period.toNanos();
                context.stats().skipped(name, ClusterJobStats.SkipReason.DATABASE_DOWN, passed);
                fates.down(next, first.minus(period), passed);
                return first;
            }
            Instant reached = lastGridPointNotAfter(grid, period, now);
            if (reached != null && reached.isAfter(oldest)) {
                return reached;
            }
            return firstGridPointNotBefore(grid, period, now);
        }
        Instant reached = lastGridPointNotAfter(grid, period, now);
        if (reached != null && reached.isAfter(oldest)) {
            return reached;
        }
        return firstGridPointNotBefore(grid, period, now);
    }

    /** Returns the last {@code anchor + k * period}, k >= 0, that is not after {@code now}; null before the anchor. */
    static @Nullable Instant lastGridPointNotAfter(Instant anchor, Duration period, Instant now) {
        if (now.isBefore(anchor)) {
            return null;
        }
        long steps = Duration.between(anchor, now).toNanos() / period.toNanos();
        return anchor.plus(period.multipliedBy(steps));
    }

    /** Returns the first {@code anchor + k * period}, k >= 0, that is not before {@code now}. */
    static Instant firstGridPointNotBefore(Instant anchor, Duration period, Instant now) {
        if (!now.isAfter(anchor)) {
            return anchor;
        }
        long periodNanos = period.toNanos();
        long elapsed = Duration.between(anchor, now).toNanos();
        long steps = elapsed / periodNanos + (elapsed % periodNanos == 0 ? 0 : 1);
        return anchor.plus(period.multipliedBy(steps));
    }

    @Override
    protected java.util.function.UnaryOperator<@Nullable Instant> nominalFires() {
        return fire -> firstGridPointNotBefore(Objects.requireNonNull(anchor, "anchor"), period, fire.plusNanos(1));
    }

    @Override
    public String jobSchedule() {
        return "every " + NamedJob.words(period);
    }
}
