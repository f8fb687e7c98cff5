package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe; called on the engine's workers and its poll thread. The fenced statements that end a
 * run: a completion (with the next fire of a recurring task), a failure (with its back-off), a move
 * past missed fires, each with its record in the run history, and each refusal reported.
 */
final class DurableCompletions {

    private static final Log logger = LogFactory.getLog(DurableTaskRunner.class);

    private final TaskStores stores;
    private final RunHistory history;
    private final DurableTaskSettings settings;
    private final String owner;
    private final Clock clock;
    private final FenceRefusals refusals;

    DurableCompletions(
            TaskStores stores,
            RunHistory history,
            DurableTaskSettings settings,
            String owner,
            Clock clock,
            FenceRefusals refusals) {
        this.stores = stores;
        this.history = history;
        this.settings = settings;
        this.owner = owner;
        this.clock = clock;
        this.refusals = refusals;
    }

    /** The record of a run of {@code claimed} that began at the ticker reading {@code began}. */
    FinishedRun finished(ClaimedTask claimed, int attempt, long began, RunOutcome outcome, @Nullable String error) {
        return new FinishedRun(
                RunKind.TASK,
                claimed.handler(),
                claimed.key(),
                claimed.fireAt(),
                owner,
                Duration.ofNanos(System.nanoTime() - began).toMillis(),
                outcome,
                attempt,
                error);
    }

    /** Whether a failure of {@code attempt} is the last the task gets. */
    boolean lastAttempt(int attempt) {
        return attempt >= settings.maxAttempts();
    }

    /**
     * The completion inside a handler's completion transaction, with its record there; returns
     * whether it was accepted (if not, the caller rolls the handler's writes back).
     */
    boolean completeJoined(ClaimedTask claimed, int attempt, long began, long lapsesAtStart) {
        DurableTaskStore via = stores.joining();
        boolean accepted = claimed.schedule() == null
                ? via.completeOnce(claimed)
                : via.completeRecurring(claimed, nextFire(claimed), null);
        refusals.refused(claimed, accepted, "completed", lapsesAtStart);
        if (accepted) {
            history.recordJoined(finished(claimed, attempt, began, RunOutcome.SUCCEEDED, null));
        }
        return accepted;
    }

    /** The completion outside a handler's transaction, with its record: one statement on PostgreSQL. */
    boolean completeRecorded(ClaimedTask claimed, FinishedRun run, long lapsesAtStart) {
        DurableTaskStore store = stores.own();
        boolean accepted = claimed.schedule() == null
                ? store.completeOnce(claimed, history, run)
                : store.completeRecurring(claimed, nextFire(claimed), history, run);
        refusals.refused(claimed, accepted, "completed", lapsesAtStart);
        return accepted;
    }

    /** The failure of {@code attempt}, with its record; returns whether it was accepted. */
    boolean failRecorded(ClaimedTask claimed, int attempt, String error, FinishedRun run, long lapsesAtStart) {
        return history.complete(() -> fail(claimed, attempt, error, lapsesAtStart), run, false);
    }

    private boolean fail(ClaimedTask claimed, int attempt, String error, long lapsesAtStart) {
        boolean terminal = lastAttempt(attempt);
        boolean accepted;
        if (claimed.schedule() != null && terminal) {
            accepted = stores.own().completeRecurring(claimed, nextFire(claimed), error);
        } else {
            accepted = stores.own().fail(claimed, terminal, error, settings.backoff(attempt));
        }
        refusals.refused(claimed, accepted, "failed", lapsesAtStart);
        return accepted;
    }

    /**
     * Where a recurring task goes past a missed fire its catch-up policy does not run, without
     * running the handler; null when it runs (see {@link DurableSchedule#skipTo}).
     */
    @Nullable
    Instant skipTarget(ClaimedTask claimed) {
        DurableSchedule schedule = schedule(claimed);
        Instant target = schedule.skipTo(claimed.fireAt(), clock.instant());
        if (target != null) {
            logger.info("Durable task " + claimed.handler() + "/" + claimed.key() + " missed fires from "
                    + claimed.fireAt() + "; its catch-up (" + schedule.catchUpPolicy() + ") moves it to " + target);
        }
        return target;
    }

    /** Moves a recurring task to {@code target} past its missed fires; returns whether it was accepted. */
    boolean moveMissed(ClaimedTask claimed, Instant target, long lapsesAtStart) {
        boolean accepted = stores.own().completeRecurring(claimed, target, null);
        refusals.refused(claimed, accepted, "moved past missed fires", lapsesAtStart);
        return accepted;
    }

    private Instant nextFire(ClaimedTask claimed) {
        DurableSchedule schedule = schedule(claimed);
        Instant each = schedule.nextAfterRun(claimed.fireAt());
        if (each != null) {
            return each;
        }
        Instant now = clock.instant();
        Instant after = now.isAfter(claimed.fireAt()) ? now : claimed.fireAt();
        return schedule.next(claimed.fireAt(), after);
    }

    private static DurableSchedule schedule(ClaimedTask claimed) {
        return DurableSchedule.parse(Objects.requireNonNull(claimed.schedule()));
    }
}
