package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Thread-safe; reached through {@link DurableTaskTesting} only. Runs tasks of one engine on the
 * calling thread, now, for tests of handlers.
 */
final class HandRun {

    private final DurableTaskStore store;
    private final DurableTaskSettings settings;
    private final DatabaseClock clock;
    private final ClaimedWork work;
    private final DurableTaskPoll poll;
    private final DurableTaskRunner runner;

    HandRun(
            DurableTaskStore store,
            DurableTaskSettings settings,
            DatabaseClock clock,
            ClaimedWork work,
            DurableTaskPoll poll,
            DurableTaskRunner runner) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
        this.work = work;
        this.poll = poll;
        this.runner = runner;
    }

    /** See {@link DurableTaskTesting#runDueNow}. */
    int runDueNow(String owner) {
        Instant localNow = clock.localClock().instant();
        List<ClaimedTask> due = new ArrayList<>(
                work.queued().removeIf(task -> !clock.toLocal(task.dueAt()).isAfter(localNow)));
        due.addAll(store.claimExpired(owner, settings.lease(), poll.handlerNames(), settings.batchSize()));
        due.addAll(store.claimDue(owner, Duration.ZERO, settings.lease(), poll.handlerNames(), settings.batchSize()));
        int ran = 0;
        for (ClaimedTask task : due) {
            if (runner.runHere(task)) {
                ran++;
            }
        }
        return ran;
    }

    /** See {@link DurableTaskTesting#runNow}. */
    boolean runNow(String owner, String handler, String key) {
        Optional<ClaimedTask> claimed;
        // Under the poll's lock: moved to now, the task is due, and this instance's own poll must
        // not claim it between the move and the claim here.
        synchronized (work.claimLock()) {
            OptionalLong id = store.reschedule(handler, key, clock.now());
            if (id.isEmpty()) {
                return false;
            }
            work.queued()
                    .removeIf(
                            task -> task.handler().equals(handler) && task.key().equals(key));
            claimed = store.claimOne(owner, id.getAsLong(), settings.lookahead(), settings.lease());
        }
        return claimed.map(runner::runHere).orElse(false);
    }
}
