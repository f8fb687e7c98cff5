package io.timedjobs.scheduler.jdbc.cluster;

import java.time.Duration;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Used by one {@link ClusteredJob} only, under its thread rule (trigger and run alternate, so the
 * volatile fields below are never written concurrently): which definition of the job fires, and
 * whether this instance's is the one.
 *
 * <p>Definitions that change from one deploy to the next. The job's row names the one definition
 * (kind, schedule, zone, initial delay: {@link JobDefinition}) that fires, and the database records
 * a fire only under it, so at every moment one definition fires across the cluster. At start-up an
 * instance whose definition differs from the row's takes the job over when its definition is one
 * the job never had before the current one (a new deploy: it switches when the first instance
 * carrying it starts). A definition the job had before (an old instance restarting during a
 * rollout, or a roll-back) takes over only once no live instance carries the current one. An
 * instance that does not take over stands by, says so once, and looks again every poll interval.
 */
final class DefinitionRollout {

    /**
     * The job's category, as before this class was split from it: logging set up for the clustered
     * jobs still covers these lines.
     */
    private static final Log logger = LogFactory.getLog(ClusteredJob.class);

    private final ClusteredJob job;

    /** Why this instance stands by (another definition of the job fires), or null while it fires it. */
    private volatile @Nullable String standby;

    /** The key of the definition this instance stands by for; see {@link #standby}. */
    private volatile @Nullable String standbyFor;

    /** Whether the row was last seen fencing off instances of schema version 1; see JobSql#takeOver. */
    private volatile boolean fenced;

    DefinitionRollout(ClusteredJob job) {
        this.job = job;
    }

    /**
     * Returns why this instance does not fire the job: another definition of it fires; null while
     * this instance fires it, or may.
     */
    @Nullable
    String refusedReason() {
        return standby;
    }

    /** Returns whether this instance stands by while another definition of the job fires. */
    boolean standsBy() {
        return standby != null;
    }

    /**
     * Decides from the job's row whether this instance fires the job, taking it over or standing by
     * as the class comment says; returns false to look again a poll interval later.
     */
    boolean settle(JobStore.JobRow read) {
        JobStore store = job.context.store();
        String name = job.name();
        JobDefinition mine = job.definition();
        JobStore.JobRow row = read;
        for (int attempt = 0; attempt < 3; attempt++) {
            fenced = row.fenced();
            if (job.key().equals(row.definitionKey())) {
                if (standby != null) {
                    logger.info("Clustered job " + name + " fires on this instance again, by " + mine.text());
                }
                standby = null;
                return job.accept(row);
            }
            String current = row.definitionKey();
            if (current == null && mine.matchesVersion1Row(row.kind(), row.schedule(), row.timeZone())) {
                store.definitions().adopt(name, mine);
            } else if (mayTakeOver(row)) {
                if (store.definitions().takeOver(name, mine, job.proposedAnchor(), job.proposedNextFire(), current)) {
                    logger.info("Clustered job " + name + " now fires by " + mine.text() + ", this instance's"
                            + " definition (it was " + describe(row)
                            + "); instances carrying the old one stop firing it");
                }
            } else {
                job.standBy(row); // the job drops its pending fire too
                return true;
            }
            JobStore.JobRow again = store.read(name);
            if (again == null) {
                return false;
            }
            row = again;
        }
        return false; // others changed the row meanwhile: settle a poll interval later
    }

    /**
     * Whether this instance may make its definition the job's: always when the job never had it
     * before its current one (a new deploy, or a row of schema version 1 holding another one); else
     * only when no live instance carries the current one.
     */
    private boolean mayTakeOver(JobStore.JobRow row) {
        String current = row.definitionKey();
        if (current == null) {
            return true;
        }
        JobDefinitionStore.RecordedDefinition mine =
                job.context.store().definitions().definition(job.name(), job.key());
        if (mine == null || mine.firstSeenAt().isAfter(row.definedAt())) {
            return true;
        }
        return job.context.store().definitions().liveCarriers(job.name(), current) == 0;
    }

    /** Stands by while another definition fires, saying so once; through {@link ClusteredJob#standBy}. */
    void standBy(JobStore.JobRow row) {
        if (standby != null && Objects.equals(standbyFor, row.definitionKey())) {
            return; // said already, for this definition
        }
        standbyFor = row.definitionKey();
        String reason = "the cluster fires it by " + describe(row) + " (since " + row.definedAt()
                + (row.definedBy() == null ? "" : ", set by instance " + row.definedBy()) + "), not by "
                + job.definition().text() + " as this instance's code says; this instance takes it back only when"
                + " no live instance carries that definition";
        logger.warn("Clustered job " + job.name() + " does not fire on this instance: " + reason);
        standby = reason;
    }

    private String describe(JobStore.JobRow row) {
        String current = row.definitionKey();
        JobDefinitionStore.RecordedDefinition recorded =
                current == null ? null : job.context.store().definitions().definition(job.name(), current);
        if (recorded != null) {
            return recorded.text();
        }
        return new JobDefinition(row.kind(), row.schedule(), row.timeZone(), Duration.ZERO).text();
    }

    /**
     * While the row fences off instances of schema version 1 after a definition change, tries to
     * lift the fence once per fire: it goes once none of them is alive.
     */
    void liftFenceIfDue() {
        if (!fenced) {
            return;
        }
        if (job.context.store().definitions().liftFence(job.name())) {
            fenced = false;
            logger.info("Clustered job " + job.name() + ": no instance of schema version 1 is left, so its pause"
                    + " flag is the job's pause again");
        } else {
            JobStore.JobRow row = job.context.store().read(job.name());
            fenced = row != null && row.fenced(); // another instance may have lifted it
        }
    }
}
