package io.timedjobs.scheduler.jdbc.durable;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Thread-safe; used on the engine's workers and its poll thread. Counts and reports the outcomes
 * the database refused by their fence.
 *
 * <p>A refusal after this instance's leases lapsed (a pause of the process or an outage longer than
 * the lease, see {@link LeaseDeadline#lapses()}) means another instance may have taken the task over
 * and run it again: that is logged at WARN. Other refusals (the task was cancelled or replaced
 * meanwhile) stay at INFO.
 */
final class FenceRefusals {

    private static final Log logger = LogFactory.getLog(DurableTaskRunner.class);

    private final LeaseDeadline leases;
    private final String owner;
    private final RunCounts counts;

    FenceRefusals(LeaseDeadline leases, String owner, RunCounts counts) {
        this.leases = leases;
        this.owner = owner;
        this.counts = counts;
    }

    /** Counts and logs an outcome the database refused by its fence; nothing when {@code accepted}. */
    void refused(ClaimedTask claimed, boolean accepted, String outcome, long lapsesAtStart) {
        if (accepted) {
            return;
        }
        counts.fenced();
        String task = "Durable task " + claimed.handler() + "/" + claimed.key() + " (id " + claimed.id() + ")";
        if (leases.lapses() != lapsesAtStart || !leases.held()) {
            logger.warn(task + " " + outcome + " after its claim was taken over; it may have run again elsewhere"
                    + " (the leases of instance " + owner + " lapsed while it ran: a pause of the process or a"
                    + " database out of reach for longer than its leases were known to hold, three quarters of"
                    + " timed-jobs.cluster.lease after a renewal); its outcome here was refused");
        } else {
            logger.info("The outcome of " + task + " (" + outcome + ") was refused: it was cancelled, changed or"
                    + " taken over by another instance since it was claimed");
        }
    }
}
