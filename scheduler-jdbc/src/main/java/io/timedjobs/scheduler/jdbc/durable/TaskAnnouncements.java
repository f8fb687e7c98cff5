package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.TaskNotifications;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Used by {@link DurableTaskEngine} only; thread-safe. What instances tell each other about tasks
 * through the database's notifications (PostgreSQL), so that a sleeping instance ({@link IdlePace})
 * still starts a task scheduled elsewhere on time:
 *
 * <ul>
 *   <li>a task scheduled (or rescheduled) here that this instance does not claim right after commit,
 *       due before a sleeping instance would look again on its own, is announced in the scheduling
 *       transaction (delivered at its commit, never before); an instance with its handler claims
 *       what is due within the lookahead at once, in one batch claim for all the announcements it
 *       received together (a transaction of a thousand tasks is one claim, not a thousand), or
 *       wakes the lookahead before the earliest due time;
 *   <li>claims handed back at a stop are announced, and every instance wakes for a full poll.
 * </ul>
 *
 * Where the database cannot notify, nothing is sent and instances poll at every interval.
 */
final class TaskAnnouncements {

    /** The payload of a hand-back: every listener polls. */
    static final String POLL = "poll";

    private final TaskStores stores;
    private final String channel;
    private final DurableTaskSettings settings;
    private final DatabaseClock clock;
    private final IdlePace pace;
    private final Set<String> handlers;
    private final Runnable claimDue;
    private final Duration announceWithin;

    /**
     * @param channel the database's channel of these tables ({@link TaskNotifications#channel})
     * @param handlers the handlers of this instance, whose announced tasks it claims
     * @param claimDue one batch claim of what is due within the lookahead
     */
    TaskAnnouncements(
            TaskStores stores,
            String channel,
            DurableTaskSettings settings,
            DatabaseClock clock,
            IdlePace pace,
            Set<String> handlers,
            Runnable claimDue) {
        this.stores = stores;
        this.channel = channel;
        this.settings = settings;
        this.clock = clock;
        this.pace = pace;
        this.handlers = Set.copyOf(handlers);
        this.claimDue = claimDue;
        this.announceWithin = settings.lookahead().plus(IdlePace.idleInterval(settings));
    }

    /**
     * Listens for what other instances announce, on one connection held while the engine runs; a
     * listener that hears nothing where {@code listen} is false, this instance has no handler or the
     * database cannot notify.
     */
    TaskNotifications listener(ClusterDatabase database, String owner, boolean listen) {
        return listen && !handlers.isEmpty()
                ? TaskNotifications.of(database, owner, settings.pollInterval(), this::received, pace::wakeNow)
                : TaskNotifications.none();
    }

    /**
     * Announces a task just written in the caller's transaction, which this instance will not claim
     * after commit, if it is due before a sleeping instance would look again on its own.
     */
    void scheduled(String handler, long id, Instant due) {
        if (due.isAfter(clock.now().plus(announceWithin))) {
            return;
        }
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            stores.joining().announce(channel, format(id, due, handler));
            return;
        }
        // In a transaction: one announcement per handler, its earliest due time, sent just before the
        // commit. Listeners claim in batches, so a thousand tasks scheduled together cost one.
        @SuppressWarnings("unchecked")
        Map<String, Instant> earliest = (Map<String, Instant>) TransactionSynchronizationManager.getResource(this);
        if (earliest == null) {
            Map<String, Instant> created = new HashMap<>();
            TransactionSynchronizationManager.bindResource(this, created);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    created.forEach((name, first) -> stores.joining().announce(channel, format(0, first, name)));
                }

                @Override
                public void afterCompletion(int status) {
                    TransactionSynchronizationManager.unbindResourceIfPossible(TaskAnnouncements.this);
                }
            });
            earliest = created;
        }
        earliest.merge(handler, due, (one, other) -> one.isBefore(other) ? one : other);
    }

    /** Announces that claims were handed back, for every sleeping instance to poll. */
    void handedBack() {
        stores.own().announce(channel, POLL);
    }

    /** On the listening thread: what other instances announced, received together. */
    void received(List<String> payloads) {
        Instant now = clock.now();
        boolean claimNow = false;
        Instant earliest = null;
        for (String payload : payloads) {
            if (POLL.equals(payload)) {
                pace.wakeNow();
                continue;
            }
            String[] parts = payload.split(" ", 3);
            if (parts.length != 3 || !handlers.contains(parts[2])) {
                continue; // another handler's task, or a payload of another version: the poll finds it
            }
            Instant claimFrom;
            try {
                claimFrom = Instant.EPOCH
                        .plus(Long.parseLong(parts[1]), ChronoUnit.MICROS)
                        .minus(settings.lookahead());
            } catch (NumberFormatException | ArithmeticException e) {
                pace.wakeNow();
                continue;
            }
            if (!claimFrom.isAfter(now)) {
                claimNow = true;
            } else if (earliest == null || claimFrom.isBefore(earliest)) {
                earliest = claimFrom;
            }
        }
        if (earliest != null) {
            pace.wakeBy(clock.ticker().read() + clock.nanosUntil(earliest.minus(settings.pollInterval())));
        }
        if (claimNow) {
            claimDue.run();
        }
    }

    /**
     * The payload of a task: its id (0 for the earliest of several scheduled in one transaction), its
     * due time in microseconds since the epoch, its handler.
     */
    static String format(long id, Instant due, String handler) {
        return id + " " + ChronoUnit.MICROS.between(Instant.EPOCH, due) + " " + handler;
    }
}
