package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.springframework.dao.DataAccessException;

/**
 * Thread-safe; used by {@link DurableTaskRunner} only, on the engine's workers and its poll thread.
 * Writes the outcomes of executions: now, in a {@link CompletionGroup} with others, or, when the
 * database cannot take them, at the next poll ({@link #writeDeferred}); refusals by their fence go to
 * {@link FenceRefusals}.
 */
final class DurableOutcomes {

    private final DurableTaskStore store;
    private final RunHistory history;
    private final String owner;
    private final EngineOutages outages;
    private final FenceRefusals refusals;
    private final SingleCompletion single;

    /** Outcomes the database could not take when they happened, written at the next poll. */
    private final Queue<Outcome> deferred = new ConcurrentLinkedQueue<>();

    /** The longest a stop waits for a group being written on the completions' timer. */
    private static final Duration LINGER_STOP_WAIT = Duration.ofSeconds(5);

    /** One-off completions outside a handler's transaction, written in groups. */
    private final CompletionGroup completions;

    /** An outcome to write; returns whether the database accepted it. */
    @FunctionalInterface
    interface Outcome {
        boolean write();
    }

    /** Writes one completion alone, with its record; returns whether it was accepted. */
    @FunctionalInterface
    interface SingleCompletion {
        boolean write(CompletionGroup.Completion completion);
    }

    /**
     * @param outages where failures go, and whether the database is known to be away (an outcome is
     *     then kept for the next poll without a try)
     * @param linger the longest a completion waits for others to share its commit; zero for none
     * @param single writes a completion alone: outside a group, and for a group the database refused
     */
    DurableOutcomes(
            DurableTaskStore store,
            RunHistory history,
            String owner,
            EngineOutages outages,
            FenceRefusals refusals,
            Duration linger,
            SingleCompletion single) {
        this.store = store;
        this.history = history;
        this.owner = owner;
        this.outages = outages;
        this.refusals = refusals;
        this.single = single;
        this.completions = new CompletionGroup(this::writeGroup, linger);
    }

    /** Writes a one-off task's completion, in a group. */
    void complete(CompletionGroup.Completion completion) {
        completions.add(completion);
    }

    /** Writes an outcome now, or keeps it for the next poll when the database cannot be reached. */
    void record(Outcome outcome) {
        if (outages.databaseAway()) {
            deferred.add(outcome); // known away: the worker does not wait the database timeout for it
            return;
        }
        try {
            outcome.write();
        } catch (DataAccessException e) {
            databaseFailed(e);
            deferred.add(outcome);
        }
    }

    /**
     * Writes one group of completions: one alone as any completion is, several in one transaction
     * (their fenced deletes, then the records of those accepted; see {@link
     * GroupStatements}). Never throws: a group
     * the database does not take is kept, each completion for the next poll to write alone.
     */
    private void writeGroup(List<CompletionGroup.Completion> group) {
        if (group.size() == 1) {
            record(() -> single.write(group.get(0)));
            return;
        }
        List<ClaimedTask> tasks =
                group.stream().map(CompletionGroup.Completion::task).toList();
        List<FinishedRun> runs =
                group.stream().map(CompletionGroup.Completion::run).toList();
        int[] counts;
        try {
            counts = history.completeAll(() -> store.completeOnceAll(tasks), runs);
        } catch (RuntimeException e) {
            // the database away, a deadlock lost, or counts unknown: nothing was written
            if (e instanceof DataAccessException access) {
                databaseFailed(access);
            }
            for (CompletionGroup.Completion one : group) {
                deferred.add(() -> single.write(one));
            }
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            refusals.refused(
                    group.get(i).task(),
                    counts[i] == 1,
                    "completed",
                    group.get(i).lapsesAtStart());
        }
    }

    /**
     * Writes the outcomes kept while the database could not be reached (at each poll); stops at the
     * first error, which it throws. Completions waiting for their group are left to the worker that
     * writes groups: a poll thread that took that over could write for seconds under load, and its
     * heartbeat would fall silent.
     */
    void writeDeferred() {
        Outcome outcome;
        while ((outcome = deferred.peek()) != null) {
            outcome.write();
            deferred.remove(outcome);
        }
    }

    /** As the engine starts: completions wait a moment for company (see {@link CompletionGroup}). */
    void startLingering() {
        completions.startLingering("timed-jobs-durable-completions-" + owner);
    }

    /** As a crash would: completions waiting for company are never written (see {@code abandon()}). */
    void dropLingering() {
        try {
            completions.stopLingering(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * At stop, once the workers are done: writes the completions still waiting for company or left
     * behind by a writer (it was interrupted), then the deferred outcomes; stops at the first error,
     * which it throws.
     */
    void writeAll() {
        try {
            completions.stopLingering(LINGER_STOP_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // what waits is written below all the same
        }
        completions.writeWaiting();
        writeDeferred();
    }

    /** Outcomes not written yet: completions waiting for their group, and those kept for the next poll. */
    int deferredCount() {
        return deferred.size() + completions.size();
    }

    void databaseFailed(DataAccessException failure) {
        outages.failed(failure);
    }
}
