package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe; called on the in-memory engine's workers, many tasks at once. Runs one claimed task
 * (or starts a group of them, see {@link TaskStarts}): the fenced start ({@link FencedStarts}), the
 * handler (inside the completion's transaction when it asks for it), then the fenced completion or
 * failure ({@link DurableCompletions}), which {@link DurableOutcomes} writes.
 *
 * <p>A task whose start could not reach the database runs all the same while this instance's lease
 * holds; its outcome then waits until the next poll writes it. Each call waits on the database at
 * most the database timeout ({@code ClusterDatabase#jdbc()}), on the engine's workers, not on jobs'
 * workers.
 */
final class DurableTaskRunner {

    private static final Log logger = LogFactory.getLog(DurableTaskRunner.class);

    private final Map<String, DurableTaskHandler<?>> handlers;
    private final HandlerCall calls;
    private final FencedStarts starts;
    private final DurableCompletions completions;
    private final @Nullable TransactionTemplate completionTransaction;
    private final RunCounts counts;

    /** Tasks whose handler runs now, for the warning of a lapsed lease; see {@link #running()}. */
    private final Set<ClaimedTask> running = ConcurrentHashMap.newKeySet();

    /**
     * Tasks whose handler ended since the heartbeat's last poll, each with the number of its end
     * ({@link #ends}): a run frozen past the lease ends the moment the process resumes, before the
     * heartbeat finds the silence, and was held all through it; see {@link #heldSinceLastPoll()}.
     */
    private final Map<String, Long> endedSincePoll = new ConcurrentHashMap<>();

    /** Numbers the ends of runs, so that a poll forgets only the ends that came before it began. */
    private final AtomicLong ends = new AtomicLong();

    /**
     * The last end number seen as a poll began ({@link #pollBegins()}); the poll's {@link #polled()}
     * forgets the ends up to it. A process frozen during a poll resumes inside it: the runs that end
     * then come after the mark, and the silence check of the next poll still names them.
     */
    private volatile long endsAtPollStart;

    /** Where outcomes are written, kept when the database cannot take them, and refusals reported. */
    private final DurableOutcomes outcomes;

    /**
     * @param completionTransaction the transaction of handlers that run in their completion's; null
     *     when none is configured (a handler that asks for one is then refused here)
     */
    DurableTaskRunner(
            Map<String, DurableTaskHandler<?>> handlers,
            HandlerCall calls,
            FencedStarts starts,
            DurableCompletions completions,
            DurableOutcomes outcomes,
            @Nullable TransactionTemplate completionTransaction,
            RunCounts counts) {
        this.handlers = handlers;
        this.calls = calls;
        this.starts = starts;
        this.completions = completions;
        this.outcomes = outcomes;
        this.completionTransaction = completionTransaction;
        this.counts = counts;
        handlers.forEach((name, handler) -> {
            if (handler.runsInCompletionTransaction() && completionTransaction == null) {
                throw new IllegalArgumentException("Durable task handler '" + name
                        + "' runs in the completion's transaction, but no transaction manager is configured");
            }
        });
    }

    /**
     * Starts, runs and records one task; returns whether the handler ran. The fenced start may be
     * written a little ahead of {@code notBefore} (a local instant); the handler then waits for it.
     */
    boolean run(ClaimedTask claimed, Instant notBefore) {
        return run(claimed, notBefore, false);
    }

    /**
     * As {@link #run(ClaimedTask, Instant)} on the calling thread (test support); the completion is
     * written before it returns, never left waiting for company.
     */
    boolean runHere(ClaimedTask claimed) {
        return run(claimed, Instant.MIN, true);
    }

    private boolean run(ClaimedTask claimed, Instant notBefore, boolean completeAtOnce) {
        DurableTaskHandler<?> handler = handlers.get(claimed.handler());
        if (handler == null) {
            // only claimed for known handlers; a hand-made claim could still get here
            starts.release(claimed);
            return false;
        }
        long lapses = starts.lapses();
        running.add(claimed); // from its start on: a stop keeps it, though its start may not be written yet
        boolean started = false;
        try {
            started = starts.start(claimed, notBefore);
        } finally {
            if (!started) {
                running.remove(claimed);
            }
        }
        if (!started) {
            counts.fenced();
            return false;
        }
        return runStarted(claimed, notBefore, lapses, System.nanoTime(), completeAtOnce);
    }

    /** The lapses of this instance's leases so far, read before a start: see {@link #runStarted}. */
    long lapses() {
        return starts.lapses();
    }

    /**
     * Starts several claimed tasks due at once, their fenced starts in one commit (see {@link
     * FencedStarts#startAll}); returns those started, each to be run by {@link #runStarted} with
     * {@code lapses}, read before the starts. A task whose handler is not here is handed back.
     */
    List<ClaimedTask> startAll(List<ClaimedTask> group, Instant notBefore) {
        try {
            return startKnown(group, notBefore);
        } catch (RuntimeException | Error unexpected) {
            group.forEach(running::remove); // the caller starts each alone
            throw unexpected;
        }
    }

    private List<ClaimedTask> startKnown(List<ClaimedTask> group, Instant notBefore) {
        List<ClaimedTask> known = new ArrayList<>();
        for (ClaimedTask claimed : group) {
            if (handlers.containsKey(claimed.handler())) {
                known.add(claimed);
            } else {
                starts.release(claimed);
            }
        }
        running.addAll(known); // from their start on: see run()
        int[] started = starts.startAll(known, notBefore);
        List<ClaimedTask> runs = new ArrayList<>();
        for (int i = 0; i < known.size(); i++) {
            if (started[i] == 1) {
                runs.add(known.get(i)); // held from its start, though it may wait for a worker
            } else {
                running.remove(known.get(i));
                counts.fenced();
            }
        }
        return runs;
    }

    /**
     * Runs a task whose fenced start went through (or was let pass under a held lease) at the ticker
     * reading {@code startedNanos}; returns whether its handler ran. One that waited for a worker
     * longer than a renewal interval runs only once the database renewed it as still this
     * instance's (see {@link FencedStarts#stillHeld}).
     */
    boolean runStarted(ClaimedTask claimed, Instant notBefore, long lapses, long startedNanos) {
        return runStarted(claimed, notBefore, lapses, startedNanos, false);
    }

    private boolean runStarted(
            ClaimedTask claimed, Instant notBefore, long lapses, long startedNanos, boolean completeAtOnce) {
        DurableTaskHandler<?> handler = Objects.requireNonNull(handlers.get(claimed.handler()));
        if (!starts.stillHeld(claimed, startedNanos)) {
            running.remove(claimed);
            counts.fenced();
            logger.info("Durable task " + describe(claimed) + " (id " + claimed.id() + ") waited for a worker past"
                    + " its lease and was taken over meanwhile; it does not run here");
            return false;
        }
        if (claimed.schedule() != null && skipMissed(claimed, lapses)) {
            running.remove(claimed);
            return false;
        }
        running.add(claimed);
        try {
            starts.waitUntil(notBefore);
            execute(handler, claimed, lapses, completeAtOnce);
        } finally {
            endedSincePoll.put(describe(claimed), ends.incrementAndGet());
            running.remove(claimed);
        }
        return true;
    }

    private <T> void execute(
            DurableTaskHandler<T> handler, ClaimedTask claimed, long lapsesAtStart, boolean completeAtOnce) {
        int attempt = claimed.attempts() + 1;
        long began = System.nanoTime();
        try {
            DurableTask<T> task = calls.task(handler, claimed, attempt);
            if (handler.runsInCompletionTransaction() && completionTransaction != null) {
                completionTransaction.executeWithoutResult(status -> {
                    calls.invoke(handler, task, claimed.traceParent());
                    if (!completions.completeJoined(claimed, attempt, began, lapsesAtStart)) {
                        // refused: another instance owns the task now, so the handler's writes go too
                        status.setRollbackOnly();
                    }
                });
            } else {
                calls.invoke(handler, task, claimed.traceParent());
                FinishedRun run = completions.finished(claimed, attempt, began, RunOutcome.SUCCEEDED, null);
                if (claimed.schedule() == null && !completeAtOnce) {
                    outcomes.complete(new CompletionGroup.Completion(claimed, run, lapsesAtStart));
                } else {
                    outcomes.record(() -> completions.completeRecorded(claimed, run, lapsesAtStart));
                }
            }
            counts.completed();
        } catch (RuntimeException | Error e) {
            Throwable cause = HandlerCall.cause(e);
            counts.failed();
            calls.logFailure(claimed, attempt, cause);
            // the error only (class and message, cut to fit), never the payload
            RunOutcome outcome = completions.lastAttempt(attempt) ? RunOutcome.FAILED : RunOutcome.RETRIED;
            FinishedRun run = completions.finished(claimed, attempt, began, outcome, RunHistory.errorSummary(cause));
            outcomes.record(
                    () -> completions.failRecorded(claimed, attempt, String.valueOf(cause), run, lapsesAtStart));
        }
    }

    /**
     * Moves a recurring task past a missed fire its catch-up policy does not run, without running
     * the handler; returns whether it did (see {@link DurableSchedule#skipTo}).
     */
    private boolean skipMissed(ClaimedTask claimed, long lapsesAtStart) {
        Instant target = completions.skipTarget(claimed);
        if (target == null) {
            return false;
        }
        outcomes.record(() -> completions.moveMissed(claimed, target, lapsesAtStart));
        return true;
    }

    /** The ids of the tasks started here and not ended: kept at a stop, whose hand-back would run them twice. */
    List<Long> runningIds() {
        return running.stream().map(ClaimedTask::id).sorted().toList();
    }

    /** Returns the tasks whose handler runs now, as handler/key: what a lapse of the leases may hand over. */
    List<String> running() {
        return running.stream().map(DurableTaskRunner::describe).sorted().toList();
    }

    /**
     * Returns the tasks whose handler runs now or ended since the heartbeat's last poll ({@link
     * #polled()}): what this instance held through a silence that poll finds.
     */
    List<String> heldSinceLastPoll() {
        // running first: a run that ends meanwhile joins endedSincePoll before it leaves running
        // (see runStarted), so read in this order it is seen in one set or the other
        Set<String> held = new TreeSet<>();
        running.forEach(task -> held.add(describe(task)));
        held.addAll(endedSincePoll.keySet());
        return List.copyOf(held);
    }

    /** Called as each poll of the heartbeat begins, before its silence check: marks the ends seen so far. */
    void pollBegins() {
        endsAtPollStart = ends.get();
    }

    /** Called after each poll of the heartbeat: tasks that ended before it began are no longer reported. */
    void polled() {
        long mark = endsAtPollStart;
        endedSincePoll.values().removeIf(end -> end <= mark);
    }

    static String describe(ClaimedTask task) {
        return task.handler() + "/" + task.key();
    }

    /** What became of the executions so far. */
    RunCounts counts() {
        return counts;
    }

    /** Writes the outcomes kept while the database could not be reached; stops at the first error. */
    void writeDeferred() {
        outcomes.writeDeferred();
    }

    /** As the engine starts: completions wait a moment to share a commit (see {@link CompletionGroup}). */
    void startLingering() {
        outcomes.startLingering();
    }

    /** As a crash would, for tests of rescue: completions waiting for company are never written. */
    void dropLingering() {
        outcomes.dropLingering();
    }

    /** At stop, after the workers: every outcome not written yet; stops at the first error. */
    void writeAll() {
        outcomes.writeAll();
    }

    /** Outcomes not written yet: completions waiting for their group, and those kept for the next poll. */
    int deferredCount() {
        return outcomes.deferredCount();
    }
}
