package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.dao.DataAccessException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Thread-safe; used by {@link DurableTaskEngine} only. Claims here, without waiting for a poll, the
 * tasks this instance has just scheduled and those other instances announced: a task scheduled
 * alone is claimed by id right after it is written; tasks scheduled in a transaction are claimed by
 * one batch claim after its commit (never before: until then no instance sees them), whatever their
 * number; announced tasks likewise by one batch claim per delivery. Every claim runs under the
 * engine's claim lock, so that none lands after {@code stop()} handed the claims back.
 */
final class CommitClaims {

    private final ClaimedWork work;
    private final DurableTaskPoll poll;
    private final DurableTaskSettings settings;
    private final DatabaseClock clock;
    private final ClusterHeartbeat heartbeat;
    private final EngineOutages outages;

    CommitClaims(
            ClaimedWork work,
            DurableTaskPoll poll,
            DurableTaskSettings settings,
            DatabaseClock clock,
            ClusterHeartbeat heartbeat,
            EngineOutages outages) {
        this.work = work;
        this.poll = poll;
        this.settings = settings;
        this.clock = clock;
        this.heartbeat = heartbeat;
        this.outages = outages;
    }

    /**
     * Claims a task just scheduled here, once its transaction commits, if it is due within the
     * lookahead, its handler is here and the instance is registered (else a poll claims it); returns
     * whether it will.
     */
    boolean scheduled(String handler, long id, Instant due) {
        if (work.workers() == null
                || !poll.handlerNames().contains(handler)
                || work.stopping()
                || !heartbeat.registered()
                || due.isAfter(clock.now().plus(settings.lookahead()))) {
            return false;
        }
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            handOff(() -> claimOne(id));
        } else if (!TransactionSynchronizationManager.hasResource(this)) {
            // once per transaction: one batch claim after its commit takes every task it scheduled
            // within the lookahead, where a claim each would cost a statement each
            TransactionSynchronizationManager.bindResource(this, Boolean.TRUE);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    handOff(CommitClaims.this::claimDue);
                }

                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(CommitClaims.this);
                }
            });
        }
        return true;
    }

    /**
     * One batch claim of what is due within the lookahead: on the listening thread for tasks announced
     * by others, on a worker after a transaction that scheduled tasks here.
     */
    void claimDue() {
        synchronized (work.claimLock()) {
            if (!work.stopping() && work.workers() != null && heartbeat.registered()) {
                try {
                    poll.claimDue(work.queued().size()).forEach(work::enqueue);
                } catch (DataAccessException e) {
                    outages.failed(e);
                }
            }
        }
    }

    /** The claim of one task, off the caller's thread and outside its transaction. */
    private void handOff(Runnable claim) {
        LeaderFollowerScheduler thread = work.workers();
        if (thread != null && !work.stopping()) {
            try {
                thread.execute(claim);
            } catch (RejectedExecutionException e) {
                // stopping: the next poll of any instance claims it
            }
        }
    }

    private void claimOne(long id) {
        synchronized (work.claimLock()) {
            if (!work.stopping() && heartbeat.registered()) {
                try {
                    poll.claimOne(id).ifPresent(work::enqueue);
                } catch (DataAccessException e) {
                    outages.failed(e);
                }
            }
        }
    }
}
