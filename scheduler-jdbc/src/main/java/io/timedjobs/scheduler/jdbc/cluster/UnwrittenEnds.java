package io.timedjobs.scheduler.jdbc.cluster;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Thread-safe; one per {@link SlowCalls}, so one for the clustered jobs of an instance: the run
 * history records of clustered runs whose end could not be written (the database was away as the
 * run ended, so the release of its lease and its record failed together). The run happened, so its
 * record is kept, at most {@value #MOST} of them (beyond, the oldest is dropped, which one WARN per
 * spell says), and written at the heartbeat's polls once the database answers ({@link #write}),
 * oldest first. Its start then reads as the moment it is written less its duration (the database
 * writes a record's start so, on its own clock).
 */
final class UnwrittenEnds {

    private static final Log logger = LogFactory.getLog(UnwrittenEnds.class);

    /**
     * The most records kept. One is at most about 17 KB (a stack trace of {@value
     * RunHistory#STACK_TRACE_LENGTH} characters and an error of {@value RunHistory#ERROR_LENGTH}), so
     * about 17 MB at worst; in practice one per job whose run was going on as the database went
     * away, since no fire begins while it is known to be away.
     */
    static final int MOST = 1_000;

    /** Guarded by itself. */
    private final Deque<FinishedRun> kept = new ArrayDeque<>();

    /** Whether a record was dropped since the kept ones were last all written: one WARN per spell. */
    private boolean dropping;

    /** Keeps the record of a run whose end could not be written. */
    void keep(FinishedRun run) {
        synchronized (kept) {
            if (kept.size() >= MOST) {
                FinishedRun oldest = kept.pollFirst();
                if (!dropping && oldest != null) {
                    dropping = true;
                    logger.warn("Timed Jobs keeps the run history records of at most " + MOST + " clustered runs whose"
                            + " end could not be written while the database is away; the oldest, of " + oldest.name()
                            + " at " + oldest.fireAt() + ", and those after it beyond the bound are dropped");
                }
            }
            kept.addLast(run);
        }
    }

    /** How many records are kept, not written yet. */
    int size() {
        synchronized (kept) {
            return kept.size();
        }
    }

    /**
     * Writes the kept records, oldest first, each in its own short transaction, after a read of the
     * history that leaves out one already there (a commit that went through though its answer was
     * lost; a record of the run found abandoned meanwhile gives way, as at a late end of a run);
     * stops at the first the database refuses, keeping it and those after it for the next poll.
     * Costs nothing while none is kept.
     */
    void write(RunHistory history) {
        for (FinishedRun run = peek(); run != null; run = peek()) {
            try {
                java.util.List<RunRecord> covering =
                        history.fateAt(run.name(), run.fireAt()).covering();
                if (!written(covering, run)) {
                    history.complete(() -> true, run, true);
                    if (covering.stream().anyMatch(record -> record.outcome() == RunOutcome.ABANDONED)) {
                        // found abandoned meanwhile (its lease was taken over): this record stands instead
                        history.abandoned().endedLate(run.name(), run.fireAt(), run.instance());
                    }
                }
            } catch (DataAccessException ex) {
                return; // still away: the next poll tries again
            }
            synchronized (kept) {
                if (kept.peekFirst() == run) {
                    kept.pollFirst();
                }
                if (kept.isEmpty()) {
                    dropping = false;
                }
            }
        }
    }

    private @Nullable FinishedRun peek() {
        synchronized (kept) {
            return kept.peekFirst();
        }
    }

    /** Whether the history holds a run of the record's fire by its instance already (not one found abandoned). */
    private static boolean written(java.util.List<RunRecord> covering, FinishedRun run) {
        for (RunRecord record : covering) {
            if (!record.skipped()
                    && record.outcome() != RunOutcome.ABANDONED
                    && record.instance().equals(run.instance())) {
                return true;
            }
        }
        return false;
    }
}
