package io.timedjobs.scheduler.jdbc.durable;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Run by one thread at a time (the heartbeat's poll thread, or a claim after commit), under the
 * engine's claim lock; its figures are read by any thread. One instance's poll of the tasks table:
 * deferred outcomes, lease renewal, rescue of expired claims, claims within the lookahead, warnings
 * about foreign handlers, and the pending count. Each step is one statement.
 */
final class DurableTaskPoll {

    private static final Log logger = LogFactory.getLog(DurableTaskEngine.class);

    /**
     * A poll stops claiming once this many batches wait in the in-memory queue, so that one instance
     * does not take a whole backlog while the others could share it; the next poll claims more.
     */
    private static final int MAX_QUEUED_BATCHES = 4;

    /** The pending count scans the table, so polls refresh it at most this often. */
    private static final long COUNT_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final DurableTaskStore store;
    private final DurableTaskSettings settings;
    private final Set<String> handlerNames;
    private final String owner;
    private final Runnable writeDeferred;
    private final Consumer<ClaimedTask> enqueue;
    private final IntSupplier queuedCount;

    /** Handlers already warned about, so that each is named once. */
    private final Set<String> warnedForeign = ConcurrentHashMap.newKeySet();

    final LongAdder claimed = new LongAdder();
    final LongAdder rescued = new LongAdder();
    final AtomicLong pending = new AtomicLong();

    /** When the pending tasks were last counted; only the polling thread touches it. */
    private long lastCountNanos = System.nanoTime() - COUNT_INTERVAL_NANOS;

    /** System.nanoTime() until which this instance's leases are known to hold. */
    private volatile long leaseHeldUntilNanos = System.nanoTime();

    DurableTaskPoll(
            DurableTaskStore store,
            DurableTaskSettings settings,
            Set<String> handlerNames,
            String owner,
            Runnable writeDeferred,
            Consumer<ClaimedTask> enqueue,
            IntSupplier queuedCount) {
        this.store = store;
        this.settings = settings;
        this.handlerNames = Set.copyOf(handlerNames);
        this.owner = owner;
        this.writeDeferred = writeDeferred;
        this.enqueue = enqueue;
        this.queuedCount = queuedCount;
    }

    /** One poll; throws what the database throws, leaving the rest for the next poll. */
    void run() {
        writeDeferred.run();
        long before = System.nanoTime();
        store.heartbeat(owner, settings.lease());
        leaseHeldUntilNanos = before + settings.lease().toNanos();
        List<ClaimedTask> taken = store.claimExpired(owner, settings.lease(), handlerNames, settings.batchSize());
        rescued.add(taken.size());
        taken.forEach(enqueue);
        List<ClaimedTask> due;
        do {
            due = store.claimDue(owner, settings.lookahead(), settings.lease(), handlerNames, settings.batchSize());
            claimed.add(due.size());
            due.forEach(enqueue);
        } while (due.size() == settings.batchSize()
                && queuedCount.getAsInt() < MAX_QUEUED_BATCHES * settings.batchSize());
        warnAboutForeignHandlers();
        long now = System.nanoTime();
        if (now - lastCountNanos >= COUNT_INTERVAL_NANOS) {
            pending.set(store.countWaiting());
            lastCountNanos = now;
        }
    }

    /** Claims one task just scheduled on this instance, if it is due within the lookahead. */
    void claimOne(long id) {
        store.claimOne(owner, id, settings.lookahead(), settings.lease()).ifPresent(task -> {
            claimed.increment();
            enqueue.accept(task);
        });
    }

    Set<String> handlerNames() {
        return handlerNames;
    }

    /** Whether this instance's leases still hold, as far as the last renewal tells. */
    boolean leaseHeld() {
        return System.nanoTime() - leaseHeldUntilNanos < 0;
    }

    private void warnAboutForeignHandlers() {
        for (String handler : store.foreignHandlersDue(handlerNames)) {
            if (warnedForeign.add(handler)) {
                logger.warn("Durable tasks for handler '" + handler + "' are due, but no handler of that name is"
                        + " registered on instance " + owner + "; they are left for an instance that has one");
            }
        }
    }
}
