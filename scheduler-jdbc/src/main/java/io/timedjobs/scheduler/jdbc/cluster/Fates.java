package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.jdbc.history.SkippedFires;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Used by one {@link ClusteredJob} only, under its thread rule (trigger and run alternate, so the
 * fields are volatile and never written at once): writes to the {@link RunHistory} the fates of the
 * job's nominal fires that did not run, as this instance notices them. At most one fate per fire:
 * a skip for a reason {@linkplain SkipReason#claimed() claimed} (paused, stopping, or the previous
 * run still going) holds the fire's record in the fires table, which a run needs too; a skip for
 * any other reason (the database away, missed, superseded) is written only for fires past the
 * horizon, which nothing may record any more, but for those the fires table records, and under the
 * job's lock, which leaves out the fires another record covers ({@link RunHistory#recordSkip}).
 * None while an instance of schema version 5 or older is alive ({@link SkipGate}). Which instance
 * writes which reason, and when, is told in docs/run-history.md. A fire that ran has its fate
 * written with its run's end, at no cost here. Cron and fixed-rate jobs only: a fixed-delay job's
 * fire is late, never dropped.
 */
final class Fates {

    /** Most nominal fires a missed range steps through one by one; see {@link #missed}. */
    static final int MOST_COUNTED = 100_000;

    private final ClusteredJob job;

    /** Consecutive nominal fires: the first, the last, how many. */
    private record Range(Instant first, Instant last, long fires) {}

    /** Fires skipped here while the database was away, not written yet (see {@link #back}); or null. */
    private volatile @Nullable Range down;

    /** Fires missed before this instance started, too recent to be written yet (see {@link #missedBefore}); or null. */
    private volatile @Nullable Range missedLate;

    /** The first fire refused for another definition and not written yet (see {@link #standingBy}); or null. */
    private volatile @Nullable Instant supersededFrom;

    /** Whether this instance looked for fires missed before it started (see {@link #missedBefore}). */
    private volatile boolean gapChecked;

    Fates(ClusteredJob job) {
        this.job = job;
    }

    private RunHistory history() {
        return job.context.store().history();
    }

    private @Nullable UnaryOperator<@Nullable Instant> step() {
        return job.nominalFires();
    }

    private boolean recorded() {
        return history().enabled() && step() != null;
    }

    /** The fire did not run here for {@code reason}, noticed now with the database at hand. */
    void skipped(Instant fire, SkipReason reason) {
        if (recorded()) {
            write(SkippedFires.one(job.name(), fire, reason, job.context.store().instanceName()), step());
        }
    }

    /**
     * Writes {@code skip}, unless an instance of a schema older than skip records is alive (it could
     * not read them): then the skip is left out.
     */
    private void write(SkippedFires skip, @Nullable UnaryOperator<@Nullable Instant> step) {
        if (job.context.store().skipGate().open()) {
            history().recordSkip(skip, step);
        }
    }

    /**
     * This instance stands by for another definition: from {@code fire} on, its fires are skipped as
     * {@link SkipReason#SUPERSEDED}, but for those the current definition records at the same
     * instant (they have a fate of their own). Written as the polls go by while it stands by
     * ({@link #standingBy}).
     */
    void superseded(Instant fire) {
        if (recorded() && supersededFrom == null) {
            supersededFrom = fire;
        }
    }

    /**
     * A poll while this instance stands by ({@code still}), or the one that found it firing the job
     * again: writes this definition's fires refused since the last poll, one range coalesced with
     * the one before, but for those the fires table records. While it stands by, up to the fires
     * older than the horizon (no instance may record them any more); once the job is back, up to
     * when its row took the definition back (the fires after are tried). One read of the fires
     * table per poll with fires to write, and at the end a read of the job's row.
     */
    void standingBy(boolean still) {
        Instant from = supersededFrom;
        UnaryOperator<@Nullable Instant> step = step();
        if (from == null || step == null) {
            return;
        }
        try {
            Instant end;
            if (still) {
                end = pastHorizon();
            } else {
                // the fires from when the row took this definition back on are tried (the trigger's
                // next fire is after now)
                JobStore.JobRow row = job.context.store().read(job.name());
                Instant now = job.context.clock().now();
                end = row == null ? from : row.definedAt().isBefore(now) ? row.definedAt() : now;
                supersededFrom = null;
            }
            Instant last = null;
            long fires = 0;
            for (Instant at = from; at != null && at.isBefore(end) && fires < MOST_COUNTED; at = step.apply(at)) {
                last = at;
                fires++;
            }
            if (last == null) {
                return; // no fire passed yet
            }
            Set<Instant> ran = job.context.store().catchUp().recordedFires(job.name(), from, last);
            if (still) {
                supersededFrom = step.apply(last);
            }
            writeExcept(from, last, fires, SkipReason.SUPERSEDED, ran, step);
        } catch (DataAccessException ex) {
            // tried again at the next poll
        }
    }

    /**
     * The fire was due while this instance was leaving: skipped as {@link SkipReason#STOPPING} when
     * no other instance is alive and staying to run it (else one of them does), once this instance
     * claimed the fire in the fires table (so that an instance that starts a moment later cannot
     * run it too). Who stays is read once per stop, not per job ({@link Departure#othersStaying}):
     * every instance stopping at once counts none, and each records the fires it refuses, one of
     * them per fire. Not for a job with a catch-up policy: its catch-up at the next start runs such
     * a fire or drops it.
     */
    void stopping(Instant fire) {
        if (!recorded() || job.catchesUp()) {
            return;
        }
        JobStore store = job.context.store();
        try {
            if (!store.departure().othersStaying(job.context.pollInterval())
                    && store.claimFire(job.name(), fire, job.context.fireHorizon())) {
                skipped(fire, SkipReason.STOPPING);
            }
        } catch (DataAccessException ex) {
            // the instance is leaving anyway
        }
    }

    /**
     * The fires from {@code first} to {@code last}, {@code fires} of them, were skipped here with no
     * database. Not for a job with a catch-up policy: it lists the fires of an outage itself once it
     * ends, and runs each or writes it {@link SkipReason#MISSED}.
     */
    void down(Instant first, Instant last, long fires) {
        if (!recorded() || fires < 1 || job.catchesUp()) {
            return;
        }
        Range was = down;
        down = was == null ? new Range(first, last, fires) : new Range(was.first(), last, was.fires() + fires);
    }

    /** As {@link #down(Instant, Instant, long)}, for one fire. */
    void down(Instant fire) {
        down(fire, fire, 1);
    }

    /**
     * At a fire, after its statement went through or heard recorded elsewhere: writes the fires
     * skipped while the database was away as {@link SkipReason#DATABASE_DOWN}, and those missed
     * before the start that were left, as {@link SkipReason#MISSED}; of each, only the fires past
     * the horizon (see {@link #pastHorizon}), the others kept for a later call, and but for those
     * the fires table records (the database may have been away for this instance only, and another
     * ran them): one record per range of fires none recorded. No read while nothing is past the
     * horizon.
     */
    void back() {
        if (down != null) {
            down = flush(down, SkipReason.DATABASE_DOWN);
        }
        if (missedLate != null) {
            missedLate = flush(missedLate, SkipReason.MISSED);
        }
    }

    /**
     * The instant before which no fire can get a record in the fires table any more (a run, a claim:
     * each refuses a fire further back than the horizon from the database's time), with a poll
     * interval to spare for this instance's estimate of that time: a skip of a fire before it, whose
     * fire has no record, cannot meet a run of it, nor a skip another instance claimed.
     */
    private Instant pastHorizon() {
        return job.context.clock().now().minus(job.context.fireHorizon()).minus(job.context.pollInterval());
    }

    /** Writes the fires of {@code range} past the horizon, but for those recorded; returns the rest, or null. */
    private @Nullable Range flush(@Nullable Range range, SkipReason reason) {
        UnaryOperator<@Nullable Instant> step = step();
        if (range == null || step == null) {
            return null;
        }
        Instant cutoff = pastHorizon();
        Instant headLast = range.last();
        long head = range.fires();
        Range rest = null;
        if (range.last().isAfter(cutoff)) {
            headLast = null;
            head = 0;
            Instant at = range.first();
            // stepped, not counted down: a range this instance kept may have holes (a fire it lost)
            for (; at != null && !at.isAfter(cutoff) && head < MOST_COUNTED; at = step.apply(at)) {
                headLast = at;
                head++;
            }
            if (headLast == null) {
                return range; // none past the horizon yet
            }
            rest = at != null && !at.isAfter(range.last())
                    ? new Range(at, range.last(), Math.max(1, range.fires() - head))
                    : null;
        }
        Set<Instant> ran;
        try {
            ran = job.context.store().catchUp().recordedFires(job.name(), range.first(), headLast);
        } catch (DataAccessException ex) {
            return range; // read again with the next statement that goes through
        }
        writeExcept(range.first(), headLast, head, reason, ran, step);
        return rest;
    }

    /**
     * Writes the {@code fires} from {@code first} to {@code last} as skipped for {@code reason}, but
     * for those in {@code ran}: one record per range of the others.
     */
    private void writeExcept(
            Instant first,
            Instant last,
            long fires,
            SkipReason reason,
            Set<Instant> ran,
            @Nullable UnaryOperator<@Nullable Instant> step) {
        if (ran.isEmpty() || step == null) {
            write(range(first, last, fires, reason), step);
            return;
        }
        Instant from = null;
        Instant until = null;
        long count = 0;
        long stepped = 0;
        for (Instant at = first;
                at != null && !at.isAfter(last) && stepped < Math.max(fires, MOST_COUNTED);
                at = step.apply(at), stepped++) {
            if (!ran.contains(at)) {
                from = from == null ? at : from;
                until = at;
                count++;
            } else if (from != null && until != null) {
                write(range(from, until, count, reason), step);
                from = null;
                count = 0;
            }
        }
        if (from != null && until != null) {
            write(range(from, until, count, reason), step);
        }
    }

    private SkippedFires range(Instant first, Instant last, long fires, SkipReason reason) {
        return new SkippedFires(
                job.name(), first, last, fires, reason, job.context.store().instanceName());
    }

    /** Whether {@link #missedBefore} has looked back since this instance started (or has nothing to do). */
    boolean lookedBack() {
        return gapChecked || !recorded();
    }

    /**
     * Once after this instance starts, before it tries its first fire {@code next}, for a job
     * without a catch-up policy: the nominal fires between the job's latest recorded fire and
     * {@code next} were due while no instance ran them, and are written as one {@link
     * SkipReason#MISSED} record (fires another instance accounted for, paused say, are left out; so
     * are those before the job's current definition took over, which were another schedule's).
     * Three reads per job and start; the fires not yet past the horizon (see {@link #pastHorizon})
     * are written later, by {@link #back}, once they are, but for those another instance ran
     * meanwhile.
     */
    void missedBefore(Instant next) {
        if (gapChecked || !recorded()) {
            return;
        }
        Instant cutoff = pastHorizon(); // before the reads: no fire before it is recorded after them
        try {
            // the latest fire recorded, or accounted for in the history (the fire records are kept
            // only a while; a fire begun but never ended has a record of its fire, none of its run)
            Instant recordedFire = job.context.store().catchUp().lastRecordedFire(job.name());
            Instant accounted = history().lastFireBefore(job.name(), next);
            Instant last = recordedFire == null || (accounted != null && accounted.isAfter(recordedFire))
                    ? accounted
                    : recordedFire;
            UnaryOperator<@Nullable Instant> step = step();
            if (last != null && step != null && last.isBefore(next)) {
                // fires before the current definition took over were another schedule's, not missed
                JobStore.JobRow row = job.context.store().read(job.name());
                Instant since = row != null && row.definedAt().isAfter(last) ? row.definedAt() : last;
                Instant first = step.apply(since);
                dropped(first, next.isAfter(cutoff) ? cutoff : next);
                // the fires since the cutoff may still be run by another instance: written later, by back()
                Instant late = first == null || !first.isBefore(cutoff) ? first : step.apply(cutoff.minusNanos(1));
                Instant lateLast = null;
                long fires = 0;
                for (Instant at = late; at != null && at.isBefore(next) && fires < MOST_COUNTED; at = step.apply(at)) {
                    lateLast = at;
                    fires++;
                }
                if (late != null && lateLast != null) {
                    missedLate = new Range(late, lateLast, fires);
                }
            }
            gapChecked = true;
        } catch (DataAccessException ex) {
            // looked at again before the next fire: the gap is measured from the same recorded fire
        }
    }

    /**
     * The nominal fires from {@code first} (included) to {@code end} (excluded) were missed while no
     * instance ran and are dropped (no catch-up policy, or older than it keeps): one {@link
     * SkipReason#MISSED} record.
     */
    void dropped(@Nullable Instant first, Instant end) {
        UnaryOperator<@Nullable Instant> step = step();
        if (first == null || step == null || !first.isBefore(end) || !history().enabled()) {
            return;
        }
        write(missed(job.name(), job.context.store().instanceName(), first, end, step, MOST_COUNTED), step);
    }

    /**
     * The nominal fires from {@code first} (included) to {@code end} (excluded), as one {@link
     * SkipReason#MISSED} range: stepped one by one up to {@code most} fires; past those, the last
     * fire before {@code end} is found by stepping from just before it, and the fires between are
     * counted from the spacing of those stepped (exact for an even schedule, such as every second).
     * At most about twice {@code most} steps, however long the range.
     */
    static SkippedFires missed(
            String job, String instance, Instant first, Instant end, UnaryOperator<@Nullable Instant> step, long most) {
        Instant last = first;
        long fires = 1;
        Instant at = step.apply(first);
        for (; at != null && at.isBefore(end) && fires < most; at = step.apply(at)) {
            last = at;
            fires++;
        }
        if (at != null && at.isBefore(end) && fires > 1) {
            long spacing = Math.max(1, java.time.Duration.between(first, last).toNanos() / (fires - 1));
            Instant probe = end.minusNanos(spacing * 2);
            Instant tail = last;
            long guard = 0;
            for (Instant p = step.apply(probe.isAfter(last) ? probe : last);
                    p != null && p.isBefore(end) && guard < most;
                    p = step.apply(p), guard++) {
                tail = p;
            }
            fires += Math.round(java.time.Duration.between(last, tail).toNanos() / (double) spacing);
            last = tail;
        }
        return new SkippedFires(job, first, last, fires, SkipReason.MISSED, instance);
    }

    /** As {@link #skipped(Instant, SkipReason)}, for a range of fires noticed now with the database at hand. */
    void skipped(SkippedFires skip) {
        if (recorded()) {
            write(skip, step());
        }
    }
}
