package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Thread-safe; called on the in-memory engine's workers, many tasks at once. Runs one claimed task
 * (or starts a group of them, see {@link TaskStarts}): the fenced start, the handler (inside the
 * completion's transaction when it asks for it), then the fenced completion or failure, which {@link
 * DurableOutcomes} writes.
 *
 * <p>When the database cannot be reached at the start, the task runs all the same as long as this
 * instance's lease is still held (by the {@link LeaseDeadline} the poll keeps): nobody else can take
 * it over before the lease ends; its outcome then waits until the next poll writes it. While the
 * lease holds, a start is not sent at all once the database is known to be away, and one in flight
 * past its task's due instant is given up the moment the database is known to be away or suspect
 * (the start in flight for an eighth of the database timeout, see {@link StartWait}), so such a task
 * starts on time. Short of that, the start's answer is awaited: it is what fences a task the
 * application cancelled, rescheduled or replaced since the claim; a refusal that comes after the
 * task ran anyway is logged at WARN. Each of those calls waits on the database at most the
 * database timeout ({@code ClusterDatabase#jdbc()}), on the engine's workers, not on jobs' workers.
 */
final class DurableTaskRunner {

    private static final Log logger = LogFactory.getLog(DurableTaskRunner.class);

    /** The longest a worker waits between a start written ahead and its task's due instant. */
    private static final Duration MAX_WAIT = Duration.ofMillis(50);

    /** How long past its task's due instant a start's answer is awaited while the lease holds. */
    static final Duration START_GRACE = Duration.ofMillis(50);

    /**
     * The share of the database timeout past which a start still in flight makes the database
     * suspect: a healthy start takes milliseconds; one stuck that long is most likely waiting for a
     * connection or an answer that will not come (250 ms of the default 2 s).
     */
    static final int SUSPECT_SHARE = 8;

    /** How long a start may be in flight before the database is suspect; see {@link #SUSPECT_SHARE}. */
    private final Duration suspectAfter;

    /** Fenced starts given up past their due instant while the lease holds and the database is away or suspect. */
    private final StartWait startWait = new StartWait();

    private final DurableTaskStore store;
    private final DurableTaskStore transactionalStore;
    private final Map<String, DurableTaskHandler<?>> handlers;
    private final HandlerCall calls;
    private final DurableTaskSettings settings;
    private final String owner;
    private final Clock clock;
    private final @Nullable TransactionTemplate completionTransaction;
    private final LeaseDeadline leases;
    private final OutageLog outages;
    private final RunHistory history;

    /** Whether the database is known to be away (this engine's calls or the heartbeat's failed last). */
    private final BooleanSupplier databaseAway;

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

    final LongAdder completed = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder fenced = new LongAdder();

    DurableTaskRunner(
            DurableTaskStore store,
            DurableTaskStore transactionalStore,
            Map<String, DurableTaskHandler<?>> handlers,
            PayloadCodec codec,
            DurableExecutionObserver observer,
            DurableTaskSettings settings,
            String owner,
            Clock clock,
            @Nullable TransactionTemplate completionTransaction,
            LeaseDeadline leases,
            OutageLog outages,
            BooleanSupplier databaseAway,
            RunHistory history,
            boolean groupsCompletions,
            Duration completionLinger,
            Duration suspectAfter) {
        this.suspectAfter = suspectAfter;
        this.history = history;
        this.databaseAway = databaseAway;
        this.store = store;
        this.transactionalStore = transactionalStore;
        this.handlers = handlers;
        this.calls = new HandlerCall(codec, observer, settings);
        this.settings = settings;
        this.owner = owner;
        this.clock = clock;
        this.completionTransaction = completionTransaction;
        this.leases = leases;
        this.outages = outages;
        this.outcomes = new DurableOutcomes(
                store,
                history,
                leases,
                owner,
                outages,
                fenced,
                groupsCompletions,
                completionLinger,
                databaseAway,
                one -> completeRecorded(one.task(), one.run(), one.lapsesAtStart()));
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
            store.release(claimed, owner);
            return false;
        }
        long lapses = leases.lapses();
        running.add(claimed); // from its start on: a stop keeps it, though its start may not be written yet
        boolean started = false;
        try {
            started = start(claimed, notBefore);
        } finally {
            if (!started) {
                running.remove(claimed);
            }
        }
        if (!started) {
            fenced.increment();
            return false;
        }
        return runStarted(claimed, notBefore, lapses, System.nanoTime(), completeAtOnce);
    }

    private boolean stillHeld(ClaimedTask claimed) {
        try {
            return store.renewStarted(claimed, owner, settings.lease());
        } catch (DataAccessException e) {
            databaseFailed(e);
            return leases.held();
        }
    }

    /** The lapses of this instance's leases so far, read before a start: see {@link #runStarted}. */
    long lapses() {
        return leases.lapses();
    }

    /**
     * Starts several claimed tasks due at once, their fenced starts in one commit (one statement on
     * PostgreSQL, a batch in one transaction elsewhere); returns those started, each to be run by {@link #runStarted} with {@code lapses},
     * read before the starts. A task whose handler is not here is handed back. When the batch loses a
     * deadlock or its counts are unknown, each is started alone; when the database cannot be reached,
     * they run as long as this instance's lease holds, as a single start would.
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
                store.release(claimed, owner);
            }
        }
        running.addAll(known); // from their start on: see run()
        int[] counts;
        if (startsWithoutStatement()) {
            counts = new int[known.size()];
            java.util.Arrays.fill(counts, 1);
        } else {
            try {
                int[] answered = !leases.held()
                        ? store.startAll(known, owner, settings.lease()) // no giving up: no hop either
                        : startWait.within(
                                () -> store.startAll(known, owner, settings.lease()),
                                startDeadline(notBefore),
                                mayGiveUpStart(),
                                late -> {
                                    for (int i = 0; i < known.size(); i++) {
                                        lateStartAnswered(known.get(i), late[i] == 1);
                                    }
                                },
                                failure -> lateStartFailed(known, failure));
                if (answered == null) { // still in flight, the lease holds: all run on it
                    answered = new int[known.size()];
                    java.util.Arrays.fill(answered, 1);
                }
                counts = answered;
            } catch (PessimisticLockingFailureException | GroupStatements.UnknownRowCounts e) {
                counts = new int[known.size()];
                for (int i = 0; i < known.size(); i++) {
                    counts[i] = start(known.get(i), notBefore) ? 1 : 0;
                }
            } catch (DataAccessException e) {
                databaseFailed(e);
                counts = new int[known.size()];
                java.util.Arrays.fill(counts, leases.held() ? 1 : 0);
            }
        }
        List<ClaimedTask> started = new ArrayList<>();
        for (int i = 0; i < known.size(); i++) {
            if (counts[i] == 1) {
                started.add(known.get(i)); // held from its start, though it may wait for a worker
            } else {
                running.remove(known.get(i));
                fenced.increment();
            }
        }
        return started;
    }

    /**
     * Runs a task whose fenced start went through (or was let pass under a held lease) at the ticker
     * reading {@code startedNanos}; returns whether its handler ran. One that waited for a worker
     * longer than a {@linkplain LeaseRule#renewalInterval renewal interval} may no longer be covered
     * by its lease: it runs only once the database renewed it as still this instance's.
     */
    boolean runStarted(ClaimedTask claimed, Instant notBefore, long lapses, long startedNanos) {
        return runStarted(claimed, notBefore, lapses, startedNanos, false);
    }

    private boolean runStarted(
            ClaimedTask claimed, Instant notBefore, long lapses, long startedNanos, boolean completeAtOnce) {
        DurableTaskHandler<?> handler = java.util.Objects.requireNonNull(handlers.get(claimed.handler()));
        if (System.nanoTime() - startedNanos
                        > LeaseRule.renewalInterval(settings.lease()).toNanos()
                && !stillHeld(claimed)) {
            running.remove(claimed);
            fenced.increment();
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
            waitUntil(notBefore);
            execute(handler, claimed, lapses, completeAtOnce);
        } finally {
            endedSincePoll.put(describe(claimed), ends.incrementAndGet());
            running.remove(claimed);
        }
        return true;
    }

    /**
     * Parks the worker until the clock reaches {@code instant}, at most {@link #MAX_WAIT} (the start is
     * written at most that much ahead; a clock that does not move, as in tests, cannot hold a worker
     * longer). An interrupt ends the wait early.
     */
    private void waitUntil(Instant instant) {
        Instant now = clock.instant();
        if (!now.isBefore(instant)) {
            return;
        }
        Duration wait = Duration.between(now, instant);
        long deadline = System.nanoTime() + (wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait).toNanos();
        long remaining;
        while ((remaining = deadline - System.nanoTime()) > 0
                && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(this, remaining);
        }
    }

    /**
     * The fenced start, awaited for its answer; past the task's due instant (and {@link
     * #START_GRACE}) the task runs on its lease without it once the database is known to be away,
     * and the statement goes on by itself. Without a lease held the answer is awaited on this thread.
     */
    private boolean start(ClaimedTask claimed, Instant notBefore) {
        if (startsWithoutStatement()) {
            return true;
        }
        try {
            if (!leases.held()) {
                return store.start(claimed, owner, settings.lease()); // no giving up: no hop either
            }
            Boolean started = startWait.within(
                    () -> store.start(claimed, owner, settings.lease()),
                    startDeadline(notBefore),
                    mayGiveUpStart(),
                    late -> lateStartAnswered(claimed, late),
                    failure -> lateStartFailed(List.of(claimed), failure));
            return started == null || started;
        } catch (DataAccessException e) {
            databaseFailed(e);
            return leases.held();
        }
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
                    if (!complete(claimed, transactionalStore, lapsesAtStart)) {
                        // refused: another instance owns the task now, so the handler's writes go too
                        status.setRollbackOnly();
                    } else {
                        history.recordJoined(finished(claimed, attempt, began, RunOutcome.SUCCEEDED, null));
                    }
                });
            } else {
                calls.invoke(handler, task, claimed.traceParent());
                FinishedRun run = finished(claimed, attempt, began, RunOutcome.SUCCEEDED, null);
                if (claimed.schedule() == null && !completeAtOnce) {
                    outcomes.complete(new CompletionGroup.Completion(claimed, run, lapsesAtStart));
                } else {
                    outcomes.record(() -> completeRecorded(claimed, run, lapsesAtStart));
                }
            }
            completed.increment();
        } catch (RuntimeException | Error e) {
            Throwable cause = HandlerCall.cause(e);
            failed.increment();
            calls.logFailure(claimed, attempt, cause);
            // the error only (class and message, cut to fit), never the payload
            RunOutcome outcome = attempt >= settings.maxAttempts() ? RunOutcome.FAILED : RunOutcome.RETRIED;
            FinishedRun run = finished(claimed, attempt, began, outcome, RunHistory.errorSummary(cause));
            outcomes.record(() ->
                    history.complete(() -> fail(claimed, attempt, String.valueOf(cause), lapsesAtStart), run, false));
        }
    }

    private FinishedRun finished(
            ClaimedTask claimed, int attempt, long began, RunOutcome outcome, @Nullable String error) {
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

    private boolean complete(ClaimedTask claimed, DurableTaskStore via, long lapsesAtStart) {
        boolean accepted = claimed.schedule() == null
                ? via.completeOnce(claimed)
                : via.completeRecurring(claimed, nextFire(claimed), null);
        outcomes.refused(claimed, accepted, "completed", lapsesAtStart);
        return accepted;
    }

    /** The completion outside a handler's transaction, with its record: one statement on PostgreSQL. */
    private boolean completeRecorded(ClaimedTask claimed, FinishedRun run, long lapsesAtStart) {
        boolean accepted = claimed.schedule() == null
                ? store.completeOnce(claimed, history, run)
                : store.completeRecurring(claimed, nextFire(claimed), history, run);
        outcomes.refused(claimed, accepted, "completed", lapsesAtStart);
        return accepted;
    }

    private boolean fail(ClaimedTask claimed, int attempt, String error, long lapsesAtStart) {
        boolean terminal = attempt >= settings.maxAttempts();
        boolean accepted;
        if (claimed.schedule() != null && terminal) {
            accepted = store.completeRecurring(claimed, nextFire(claimed), error);
        } else {
            accepted = store.fail(claimed, terminal, error, settings.backoff(attempt));
        }
        outcomes.refused(claimed, accepted, "failed", lapsesAtStart);
        return accepted;
    }

    /**
     * Moves a recurring task past a missed fire its catch-up policy does not run, without running
     * the handler; returns whether it did (see {@link DurableSchedule#skipTo}).
     */
    private boolean skipMissed(ClaimedTask claimed, long lapsesAtStart) {
        DurableSchedule schedule = DurableSchedule.parse(java.util.Objects.requireNonNull(claimed.schedule()));
        Instant target = schedule.skipTo(claimed.fireAt(), clock.instant());
        if (target == null) {
            return false;
        }
        logger.info("Durable task " + claimed.handler() + "/" + claimed.key() + " missed fires from " + claimed.fireAt()
                + "; its catch-up (" + schedule.catchUpPolicy() + ") moves it to " + target);
        outcomes.record(() -> {
            boolean accepted = store.completeRecurring(claimed, target, null);
            outcomes.refused(claimed, accepted, "moved past missed fires", lapsesAtStart);
            return accepted;
        });
        return true;
    }

    private Instant nextFire(ClaimedTask claimed) {
        DurableSchedule schedule = DurableSchedule.parse(java.util.Objects.requireNonNull(claimed.schedule()));
        Instant each = schedule.nextAfterRun(claimed.fireAt());
        if (each != null) {
            return each;
        }
        Instant now = clock.instant();
        Instant after = now.isAfter(claimed.fireAt()) ? now : claimed.fireAt();
        return schedule.next(claimed.fireAt(), after);
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

    private static String describe(ClaimedTask task) {
        return task.handler() + "/" + task.key();
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

    /**
     * Whether a start lets its task pass without a statement: while the database is known to be
     * away and this instance's lease still holds, nobody can take the task over, and a start
     * statement would only hold the worker for the database timeout and make the task that late.
     * Its start and outcome are written when the database is back, as after a start that failed.
     */
    private boolean startsWithoutStatement() {
        return databaseAway.getAsBoolean() && leases.held();
    }

    /** The System.nanoTime() until which a start's answer is awaited: its due instant and the grace. */
    private long startDeadline(Instant notBefore) {
        Instant now = clock.instant();
        Duration untilDue = notBefore.isAfter(now) ? Duration.between(now, notBefore) : Duration.ZERO;
        if (untilDue.compareTo(settings.lease()) > 0) {
            untilDue = settings.lease();
        }
        return System.nanoTime() + untilDue.plus(START_GRACE).toNanos();
    }

    /**
     * Whether a start sent now, still in flight past its deadline, may be given up: only while the
     * lease holds and the database is known to be away, or suspect (the start has been in flight
     * for {@link #suspectAfter}). A database that answers sooner, however slowly, is waited for.
     */
    private BooleanSupplier mayGiveUpStart() {
        long suspectAt = System.nanoTime() + suspectAfter.toNanos();
        return () -> leases.held() && (databaseAway.getAsBoolean() || System.nanoTime() - suspectAt >= 0);
    }

    /** The late answer of a start given up: a refusal is told, since the run it should have fenced went on. */
    private void lateStartAnswered(ClaimedTask claimed, boolean started) {
        if (!started) {
            logger.warn("Durable task " + describe(claimed) + " (id " + claimed.id() + ") ran on its lease while"
                    + " the database was away or slow to answer, and its start, written late, was refused: the task was cancelled,"
                    + " changed or taken over since its claim; its outcome here is refused");
        }
    }

    /**
     * A start that failed after its task went on without it: the outage is known from then on. A
     * lost lock or deadlock is an answer of a database that is there, not an outage.
     */
    private void lateStartFailed(List<ClaimedTask> tasks, RuntimeException failure) {
        if (failure instanceof PessimisticLockingFailureException) {
            logger.warn(
                    "The start of durable task(s) "
                            + tasks.stream().map(DurableTaskRunner::describe).toList()
                            + ", which ran on their lease while the database was away or slow to answer, lost a lock when it reached"
                            + " the database; their outcomes are fenced by their claims",
                    failure);
        } else if (failure instanceof DataAccessException access) {
            databaseFailed(access);
        }
    }

    private void databaseFailed(DataAccessException failure) {
        outcomes.databaseFailed(failure);
    }
}
