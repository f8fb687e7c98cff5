package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.jdbc.history.SkippedFires;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Used by one {@link RecordedFireJob} only, under its thread rule (a run and the trigger's step
 * that follows it alternate, so the field is volatile and never written at once): the nominal fires
 * the job's schedule steps over after a run on this instance that lasted past them (a run of the
 * schedule's fire, or a catch-up run of a missed one). Runs never
 * overlap, so none of them ran; an instance that tried one while the run went on recorded it and
 * wrote it as {@link SkipReason#STILL_RUNNING}. The others, which no instance tried (this one
 * carries the job alone), are written here once the run has ended: one read of the fires table
 * leaves out those recorded; each fire left that an attempt could still record (within the fire
 * horizon) is claimed in the fires table first, as a paused fire is, so that an instance that tries
 * it late cannot run it too; what is left is written as STILL_RUNNING, one record per range. With
 * the database known to be away, they join the outage's {@link SkipReason#DATABASE_DOWN} range.
 * Costs nothing for a run that ends before the next fire.
 */
final class PassedFires {

    private final RecordedFireJob job;

    /** The first nominal fire this instance's last run may have outlasted, until the schedule steps past it; or null. */
    private volatile @Nullable Instant from;

    PassedFires(RecordedFireJob job) {
        this.job = job;
    }

    /** This instance ran {@code fire}; its run has ended. */
    void ran(Instant fire) {
        UnaryOperator<@Nullable Instant> step = job.nominalFires();
        from = step == null ? null : step.apply(fire);
    }

    /**
     * This instance ran a missed fire, a catch-up run, while {@code first} was the schedule's next
     * fire; the run has ended.
     */
    void ranBefore(Instant first) {
        from = first;
    }

    /** The fires after the last run are accounted for by the caller (or none is to be). */
    void forget() {
        from = null;
    }

    /**
     * The schedule stepped to {@code next}: if a run here may have outlasted fires before it, writes
     * the nominal fires from the first of those to {@code next}, as the class comment says; returns
     * {@code next}.
     */
    @Nullable
    Instant steppedTo(@Nullable Instant next) {
        Instant first = from;
        from = null;
        UnaryOperator<@Nullable Instant> step = job.nominalFires();
        if (first == null
                || next == null
                || step == null
                || !job.context.store().history().enabled()) {
            return next;
        }
        if (!first.isBefore(next)) {
            return next; // the run ended before the next fire: nothing passed
        }
        Instant last = first;
        long count = 1;
        for (Instant at = step.apply(first);
                at != null && at.isBefore(next) && count < Fates.MOST_COUNTED;
                at = step.apply(at)) {
            last = at;
            count++;
        }
        if (job.context.outages().inOutage()) {
            job.fates.down(first, last, count);
            return next;
        }
        write(first, last, count, step);
        return next;
    }

    /** Writes the {@code count} passed fires from {@code first} to {@code last} that no instance recorded. */
    private void write(Instant first, Instant last, long count, UnaryOperator<@Nullable Instant> step) {
        JobStore store = job.context.store();
        String name = job.name();
        Set<Instant> recorded;
        try {
            recorded = store.catchUp().recordedFires(name, first, last);
        } catch (DataAccessException ex) {
            job.context.outages().failed("look-up of the fires passed by job " + name, ex);
            job.fates.down(first, last, count);
            return;
        }
        // an attempt records a fire up to the horizon old; an older one no attempt can take any more
        Instant claimable = job.context.clock().now().minus(job.context.fireHorizon());
        Instant from = null;
        Instant until = null;
        long fires = 0;
        long stepped = 0;
        for (Instant at = first; at != null && !at.isAfter(last) && stepped < count; at = step.apply(at), stepped++) {
            boolean mine;
            try {
                mine = !recorded.contains(at)
                        && (!at.isAfter(claimable) || store.claimFire(name, at, job.context.fireHorizon()));
            } catch (DataAccessException ex) {
                job.context.outages().failed("claim of the fires passed by job " + name, ex);
                if (from != null && until != null) {
                    job.fates.skipped(range(from, until, fires));
                }
                job.fates.down(at, last, count - stepped);
                return;
            }
            if (mine) {
                from = from == null ? at : from;
                until = at;
                fires++;
            } else if (from != null && until != null) {
                job.fates.skipped(range(from, until, fires));
                from = null;
                fires = 0;
            }
        }
        if (from != null && until != null) {
            job.fates.skipped(range(from, until, fires));
        }
    }

    private SkippedFires range(Instant first, Instant last, long fires) {
        return new SkippedFires(
                job.name(),
                first,
                last,
                fires,
                SkipReason.STILL_RUNNING,
                job.context.store().instanceName());
    }
}
