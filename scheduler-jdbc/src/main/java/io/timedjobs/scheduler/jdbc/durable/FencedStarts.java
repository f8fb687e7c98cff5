package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.PessimisticLockingFailureException;

/**
 * Thread-safe; called by {@link DurableTaskRunner} on the engine's workers. The fenced start of a
 * claimed task (or of a group due at once) and when a worker may go on without its answer.
 *
 * <p>When the database cannot be reached at the start, the task runs all the same as long as this
 * instance's lease is still held (by the {@link LeaseDeadline} the poll keeps): nobody else can take
 * it over before the lease ends. While the lease holds, a start is not sent at all once the database
 * is known to be away, and one in flight past its task's due instant is given up the moment the
 * database is known to be away or suspect (the start in flight for {@link #SUSPECT_SHARE an eighth}
 * of the database timeout, see {@link StartWait}), so such a task starts on time. Short of that, the
 * start's answer is awaited: it is what fences a task the application cancelled, rescheduled or
 * replaced since the claim; a refusal that comes after the task ran anyway is logged at WARN.
 */
final class FencedStarts {

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

    /** Fenced starts given up past their due instant while the lease holds and the database is away or suspect. */
    private final StartWait startWait = new StartWait();

    private final DurableTaskStore store;
    private final String owner;
    private final DurableTaskSettings settings;
    private final LeaseDeadline leases;
    private final EngineOutages outages;
    private final Clock clock;

    /** How long a start may be in flight before the database is suspect; see {@link #SUSPECT_SHARE}. */
    private final Duration suspectAfter;

    FencedStarts(
            DurableTaskStore store,
            String owner,
            DurableTaskSettings settings,
            LeaseDeadline leases,
            EngineOutages outages,
            Clock clock,
            Duration databaseTimeout) {
        this.store = store;
        this.owner = owner;
        this.settings = settings;
        this.leases = leases;
        this.outages = outages;
        this.clock = clock;
        this.suspectAfter = databaseTimeout.dividedBy(SUSPECT_SHARE);
    }

    /** The lapses of this instance's leases so far, read before a start. */
    long lapses() {
        return leases.lapses();
    }

    /** Hands a claim back whose handler is not here. */
    void release(ClaimedTask claimed) {
        store.release(claimed, owner);
    }

    /**
     * Whether a task started at the ticker reading {@code startedNanos} is still covered: one that
     * waited for a worker longer than a {@linkplain LeaseRule#renewalInterval renewal interval} is
     * only once the database renewed it as still this instance's.
     */
    boolean stillHeld(ClaimedTask claimed, long startedNanos) {
        if (System.nanoTime() - startedNanos
                <= LeaseRule.renewalInterval(settings.lease()).toNanos()) {
            return true;
        }
        try {
            return store.renewStarted(claimed, owner, settings.lease());
        } catch (DataAccessException e) {
            outages.failed(e);
            return leases.held();
        }
    }

    /**
     * The fenced start, awaited for its answer; past the task's due instant (and {@link
     * #START_GRACE}) the task runs on its lease without it once the database is known to be away,
     * and the statement goes on by itself. Without a lease held the answer is awaited on this thread.
     */
    boolean start(ClaimedTask claimed, Instant notBefore) {
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
            outages.failed(e);
            return leases.held();
        }
    }

    /**
     * The fenced starts of {@code known} in one commit (one statement on PostgreSQL, a batch in one
     * transaction elsewhere): 1 for each started. When the batch loses a deadlock or its counts are
     * unknown, each is started alone; when the database cannot be reached, they run as long as this
     * instance's lease holds, as a single start would.
     */
    int[] startAll(List<ClaimedTask> known, Instant notBefore) {
        if (startsWithoutStatement()) {
            return all(known.size(), 1);
        }
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
            // still in flight, the lease holds: all run on it
            return answered == null ? all(known.size(), 1) : answered;
        } catch (PessimisticLockingFailureException e) {
            int[] counts = new int[known.size()];
            for (int i = 0; i < known.size(); i++) {
                counts[i] = start(known.get(i), notBefore) ? 1 : 0;
            }
            return counts;
        } catch (DataAccessException e) {
            outages.failed(e);
            return all(known.size(), leases.held() ? 1 : 0);
        }
    }

    private static int[] all(int size, int count) {
        int[] counts = new int[size];
        Arrays.fill(counts, count);
        return counts;
    }

    /**
     * Parks the worker until the clock reaches {@code instant}, at most {@link #MAX_WAIT} (the start is
     * written at most that much ahead; a clock that does not move, as in tests, cannot hold a worker
     * longer). An interrupt ends the wait early.
     */
    void waitUntil(Instant instant) {
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
     * Whether a start lets its task pass without a statement: while the database is known to be
     * away and this instance's lease still holds, nobody can take the task over, and a start
     * statement would only hold the worker for the database timeout and make the task that late.
     * Its start and outcome are written when the database is back, as after a start that failed.
     */
    private boolean startsWithoutStatement() {
        return outages.databaseAway() && leases.held();
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
        return () -> leases.held() && (outages.databaseAway() || System.nanoTime() - suspectAt >= 0);
    }

    /** The late answer of a start given up: a refusal is told, since the run it should have fenced went on. */
    private void lateStartAnswered(ClaimedTask claimed, boolean started) {
        if (!started) {
            logger.warn("Durable task " + DurableTaskRunner.describe(claimed) + " (id " + claimed.id()
                    + ") ran on its lease while the database was away or slow to answer, and its start, written"
                    + " late, was refused: the task was cancelled, changed or taken over since its claim; its"
                    + " outcome here is refused");
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
            outages.failed(access);
        }
    }
}
