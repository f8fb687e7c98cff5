package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

/**
 * Run by one thread at a time (the heartbeat's poll thread, or a claim after commit), under the
 * engine's claim lock; its figures are read by any thread. One instance's poll of the tasks table:
 * lease renewal (at the pace of {@link LeaseRule}), rescue of expired claims, claims within the lookahead,
 * warnings about foreign handlers (once a minute) and the pending count (every 10 s). Each step is
 * one statement; what the steps claimed goes back to
 * the engine, which queues it. An instance with no handler and no claim sends nothing: it has
 * nothing to renew, rescue or claim, and counting for it alone would only label a meter.
 */
final class DurableTaskPoll {

    private static final Log logger = LogFactory.getLog(DurableTaskPoll.class);

    /**
     * A poll stops claiming once this many batches wait in the in-memory queue, so that one instance
     * does not take a whole backlog while the others could share it; the next poll claims more.
     */
    private static final int MAX_QUEUED_BATCHES = 4;

    /** The pending count scans the table, so polls refresh it at most this often. */
    private static final long COUNT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /**
     * Tasks of handlers this instance lacks only earn a warning, so polls look for them at most this
     * often (the first poll included), not with every claim.
     */
    private static final long FOREIGN_CHECK_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final DurableTaskStore store;
    private final DurableTaskSettings settings;
    private final Set<String> handlerNames;
    private final String owner;
    private final LeaseDeadline leases;

    /** Handlers already warned about, so that each is named once. */
    private final Set<String> warnedForeign = ConcurrentHashMap.newKeySet();

    private final LongAdder claimed = new LongAdder();
    private final LongAdder rescued = new LongAdder();
    private final AtomicLong pending = new AtomicLong();

    /** When the leases were last renewed, and whether they were yet; only the polling thread touches them. */
    private long lastRenewalNanos;

    private boolean renewedOnce;

    /** When the pending tasks were last counted; only the polling thread touches it. */
    private long lastCountNanos = System.nanoTime() - COUNT_INTERVAL_NANOS;

    /** When the foreign handlers were last looked for; only the polling thread touches it. */
    private long lastForeignCheckNanos = System.nanoTime() - FOREIGN_CHECK_INTERVAL_NANOS;

    DurableTaskPoll(
            DurableTaskStore store,
            DurableTaskSettings settings,
            Set<String> handlerNames,
            String owner,
            LeaseDeadline leases) {
        this.store = store;
        this.settings = settings;
        this.handlerNames = Set.copyOf(handlerNames);
        this.owner = owner;
        this.leases = leases;
    }

    /**
     * What one poll claimed, rescues first, and the database failure that ended it early, if any:
     * what was claimed before a failure is still this instance's to queue.
     */
    record Outcome(List<ClaimedTask> claimed, @Nullable DataAccessException failure) {}

    /**
     * One poll, given how many claimed tasks already wait in the in-memory queue. Stops at the first
     * database failure, leaving the rest for the next poll.
     */
    Outcome run(int queued) {
        return run(queued, queued > 0);
    }

    /**
     * One poll, given how many claimed tasks wait in the in-memory queue and whether this instance
     * holds any claim at all (queued, running or with an outcome not yet written): without a
     * handler and without a claim, nothing is sent.
     */
    Outcome run(int queued, boolean holdsClaims) {
        if (handlerNames.isEmpty() && !holdsClaims) {
            return new Outcome(List.of(), null);
        }
        List<ClaimedTask> taken = new ArrayList<>();
        try {
            renewIfDue();
            long sent = System.nanoTime();
            List<ClaimedTask> expired = store.claimExpired(owner, settings.lease(), handlerNames, settings.batchSize());
            noteClaims(sent, expired.size());
            rescued.add(expired.size());
            taken.addAll(expired);
            taken.addAll(claimDue(queued + taken.size()));
            warnAboutForeignHandlersIfDue();
            countIfDue(COUNT_INTERVAL_NANOS);
            return new Outcome(taken, null);
        } catch (DataAccessException e) {
            return new Outcome(taken, e);
        }
    }

    /**
     * Renews the leases every {@linkplain LeaseRule#renewalInterval renewal interval}, not at every
     * poll, and only those that end within the {@linkplain LeaseRule#renewalWindow renewal window}
     * (see {@link LeaseRule} for why). Until a renewal goes through, every poll tries again.
     */
    private void renewIfDue() {
        long before = System.nanoTime();
        if (renewedOnce
                && before - lastRenewalNanos
                        < LeaseRule.renewalInterval(settings.lease()).toNanos()) {
            return;
        }
        Duration window = LeaseRule.renewalWindow(settings.lease());
        store.renewLeases(owner, settings.lease(), window);
        // A claim left alone ends later than the window from now, not a full lease: the leases are
        // known held that far, and not further.
        leases.renewed(before, System.nanoTime(), window.toNanos());
        lastRenewalNanos = before;
        renewedOnce = true;
    }

    /**
     * Claims what is due within the lookahead, batch after batch while batches come back full, up to
     * {@value #MAX_QUEUED_BATCHES} batches waiting here in all, given how many already wait. Throws
     * the first database failure.
     */
    List<ClaimedTask> claimDue(int queued) {
        List<ClaimedTask> taken = new ArrayList<>();
        List<ClaimedTask> due;
        do {
            long sent = System.nanoTime();
            due = store.claimDue(owner, settings.lookahead(), settings.lease(), handlerNames, settings.batchSize());
            noteClaims(sent, due.size());
            claimed.add(due.size());
            taken.addAll(due);
        } while (due.size() == settings.batchSize()
                && queued + taken.size() < MAX_QUEUED_BATCHES * settings.batchSize());
        return taken;
    }

    /** Counts the pending tasks if the last count is at least {@code intervalNanos} old. */
    void countIfDue(long intervalNanos) {
        long now = System.nanoTime();
        if (now - lastCountNanos >= intervalNanos) {
            pending.set(store.countWaiting());
            lastCountNanos = now;
        }
    }

    /** Claims one task just scheduled on this instance, if it is due within the lookahead. */
    Optional<ClaimedTask> claimOne(long id) {
        long sent = System.nanoTime();
        Optional<ClaimedTask> task = store.claimOne(owner, id, settings.lookahead(), settings.lease());
        task.ifPresent(claimedTask -> {
            noteClaims(sent, 1);
            claimed.increment();
        });
        return task;
    }

    /** Tells the deadline of claims taken by a statement sent at {@code sentNanos}. */
    private void noteClaims(long sentNanos, int count) {
        if (count > 0) {
            leases.claimed(sentNanos, settings.lease().toNanos());
        }
    }

    Set<String> handlerNames() {
        return handlerNames;
    }

    private void warnAboutForeignHandlersIfDue() {
        long now = System.nanoTime();
        if (now - lastForeignCheckNanos < FOREIGN_CHECK_INTERVAL_NANOS) {
            return;
        }
        lastForeignCheckNanos = now;
        for (String handler : store.foreignHandlersDue(handlerNames)) {
            if (warnedForeign.add(handler)) {
                logger.warn("Durable tasks for handler '" + handler + "' are due, but no handler of that name is"
                        + " registered on instance " + owner + "; they are left for an instance that has one. If"
                        + " none has (a handler renamed or removed), register a DurableTaskHandler bean named '"
                        + handler + "', or cancel the tasks");
            }
        }
    }

    /** Tasks claimed by this instance so far, rescues excluded. */
    long claimedCount() {
        return claimed.sum();
    }

    /** Expired claims of other instances taken over by this one so far. */
    long rescuedCount() {
        return rescued.sum();
    }

    /** Tasks not done yet in the whole table, as last counted. */
    long pendingCount() {
        return pending.get();
    }
}
