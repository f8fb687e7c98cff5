package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The statements of the durable tasks table, run directly on a real database: claims, fences, failure,
 * rescue, heartbeat and release. One subclass per database.
 */
abstract class DurableTaskStoreContract {

    private static final Duration LOOKAHEAD = Duration.ofSeconds(5);
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration EXPIRED = Duration.ofSeconds(-1);
    private static final Set<String> HANDLERS = Set.of("mail");

    DataSource dataSource;
    DurableTaskStore store;

    abstract TestDatabases.Kind kind();

    boolean postgres() {
        return kind() == TestDatabases.Kind.POSTGRESQL;
    }

    @BeforeEach
    void setUp() {
        dataSource = kind().newDatabase();
        store = DurableTestSupport.store(dataSource);
    }

    private static Instant now() {
        return Instant.now();
    }

    /** Scheduling the same (handler, key) twice replaces payload and due time and keeps the id. */
    @Test
    void shouldReplaceATaskScheduledTwiceAndKeepItsId() {
        long first = store.upsert("mail", "k1", "a", null, now().plusSeconds(60));
        long second = store.upsert("mail", "k1", "b", null, now().plusSeconds(120));

        assertThat(second).isEqualTo(first);
        List<DurableTaskInfo> rows = store.query(DurableTaskQuery.all());
        assertThat(rows).singleElement().satisfies(row -> {
            assertThat(row.payload()).isEqualTo("b");
            assertThat(row.dueAt()).isAfter(now().plusSeconds(100));
            assertThat(row.state()).isEqualTo(DurableTaskState.PENDING);
        });
    }

    /** A claim takes only tasks of known handlers due within the lookahead, and only once. */
    @Test
    void shouldClaimOnlyDueTasksOfKnownHandlersOnce() {
        store.upsert("mail", "due", null, null, now());
        store.upsert("mail", "soon", null, null, now().plusSeconds(2));
        store.upsert("mail", "later", null, null, now().plusSeconds(60));
        store.upsert("sms", "due", null, null, now());

        List<ClaimedTask> claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 100);

        assertThat(claimed).extracting(ClaimedTask::key).containsExactly("due", "soon");
        assertThat(store.claimDue("b", LOOKAHEAD, LEASE, HANDLERS, 100)).isEmpty();
        assertThat(store.foreignHandlersDue(HANDLERS)).containsExactly("sms");
        assertThat(store.query(DurableTaskQuery.all().state(DurableTaskState.CLAIMED)))
                .extracting(DurableTaskInfo::claimedBy)
                .containsOnly("a");
    }

    /** Rows one transaction holds are skipped by another claim, neither waited for nor claimed twice. */
    @Test
    void shouldSkipRowsAnotherClaimHolds() throws Exception {
        for (int i = 0; i < 4; i++) {
            store.upsert("mail", "k" + i, null, null, now());
        }
        try (Connection held = dataSource.getConnection()) {
            held.setAutoCommit(false);
            if (kind() == TestDatabases.Kind.MARIADB) {
                // as the engine's own claims run there: REPEATABLE READ would also lock the index's gaps
                held.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            }
            DurableTaskStore holder =
                    new DurableTaskStore(new SingleConnectionDataSource(held, true), dialect(), TableNames.defaults());
            List<ClaimedTask> first = holder.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 2);

            List<ClaimedTask> second = store.claimDue("b", LOOKAHEAD, LEASE, HANDLERS, 100);

            assertThat(first).hasSize(2);
            if (kind() != TestDatabases.Kind.H2) {
                // H2 locks every row its claim's subquery matched, not only those the limit kept:
                // there the other claim finds nothing until the first commits, which is still correct.
                assertThat(second).hasSize(2);
            }
            assertThat(second).extracting(ClaimedTask::id).doesNotContainAnyElementsOf(ids(first));
            held.commit();
        }
    }

    /** A task cancelled after it was claimed cannot start. */
    @Test
    void shouldRefuseTheStartOfATaskCancelledAfterItsClaim() {
        store.upsert("mail", "k", null, null, now());
        ClaimedTask claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);

        assertThat(store.cancel("mail", "k")).isTrue();

        assertThat(store.start(claimed, "a", LEASE)).isFalse();
    }

    /** A task rescheduled or replaced after it was claimed cannot start in its old form. */
    @Test
    void shouldRefuseTheStartOfATaskRescheduledAfterItsClaim() {
        store.upsert("mail", "k", "old", null, now());
        ClaimedTask claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        assertThat(store.reschedule("mail", "k", now().plusSeconds(1))).isPresent();
        assertThat(store.start(claimed, "a", LEASE)).isFalse();

        ClaimedTask again = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        store.upsert("mail", "k", "new", null, now());
        assertThat(store.start(again, "a", LEASE)).isFalse();

        ClaimedTask current = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        assertThat(current.payload()).isEqualTo("new");
        assertThat(store.start(current, "a", LEASE)).isTrue();
    }

    /**
     * A group of starts and a group of completions (one statement each on PostgreSQL; elsewhere the
     * group's rows locked, then those that pass changed by id) keep each task's fence: a task cancelled, rescheduled or claimed again since the group
     * was claimed, or a start by another holder, is refused; of a task in the group under two claims
     * only the latest goes through, and of one listed twice under the same claim only the first; the
     * others go through, each told apart in the counts.
     */
    @Test
    void shouldFenceEachTaskOfAGroupOfStartsAndCompletions() {
        for (String key : List.of("a", "b", "c", "d", "e")) {
            store.upsert("mail", key, null, null, now());
        }
        List<ClaimedTask> group = new java.util.ArrayList<>(store.claimDue("me", LOOKAHEAD, LEASE, HANDLERS, 10));
        group.sort(java.util.Comparator.comparing(ClaimedTask::key));
        assertThat(group).extracting(ClaimedTask::key).containsExactly("a", "b", "c", "d", "e");
        assertThat(store.cancel("mail", "b")).isTrue();
        assertThat(store.reschedule("mail", "d", now())).isPresent();
        // e is claimed again by the same holder since (a rescue, say): only its version tells
        new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                .update("UPDATE timed_jobs_tasks SET claim_version = claim_version + 1 WHERE task_key = 'e'");

        // and the group holds e twice, under its old claim and its new one
        ClaimedTask old = group.get(4);
        group.add(new ClaimedTask(
                old.id(),
                old.handler(),
                old.key(),
                old.payload(),
                old.schedule(),
                old.fireAt(),
                old.dueAt(),
                old.attempts(),
                old.version() + 1,
                old.traceParent()));
        // and a twice under the same claim
        group.add(group.get(0));

        assertThat(store.startAll(group, "someone else", LEASE)).containsExactly(0, 0, 0, 0, 0, 0, 0);
        assertThat(store.startAll(group, "me", LEASE)).containsExactly(1, 0, 1, 0, 0, 1, 0);
        assertThat(store.startAll(group, "me", LEASE)).as("started already").containsExactly(0, 0, 0, 0, 0, 0, 0);
        assertThat(store.query(DurableTaskQuery.all()))
                .extracting(DurableTaskInfo::key, DurableTaskInfo::state, DurableTaskInfo::attempts)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("a", DurableTaskState.RUNNING, 1),
                        org.assertj.core.groups.Tuple.tuple("c", DurableTaskState.RUNNING, 1),
                        org.assertj.core.groups.Tuple.tuple("d", DurableTaskState.PENDING, 0),
                        org.assertj.core.groups.Tuple.tuple("e", DurableTaskState.RUNNING, 1));

        assertThat(store.completeOnceAll(group)).containsExactly(1, 0, 1, 0, 0, 1, 0);
        assertThat(store.query(DurableTaskQuery.all()))
                .extracting(DurableTaskInfo::key)
                .containsExactly("d");
        assertThat(store.startAll(List.of(), "me", LEASE)).isEmpty();
    }

    /**
     * A group of starts decides each task's fence on the row as it is once the group holds it: a task
     * claimed again by a transaction that the group's start waits for, committed while it waits, is
     * refused, never started under the claim that replaced its own.
     */
    @Test
    void shouldDecideAGroupsFencesOnRowsItHolds() throws Exception {
        for (String key : List.of("a", "b", "c")) {
            store.upsert("mail", key, null, null, now());
        }
        List<ClaimedTask> group = new java.util.ArrayList<>(store.claimDue("me", LOOKAHEAD, LEASE, HANDLERS, 10));
        group.sort(java.util.Comparator.comparing(ClaimedTask::key));
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            other.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (java.sql.Statement claimAgain = other.createStatement()) {
                claimAgain.executeUpdate(
                        "UPDATE timed_jobs_tasks SET claim_version = claim_version + 1 WHERE task_key = 'b'");
            }
            java.util.concurrent.CompletableFuture<int[]> started =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> store.startAll(group, "me", LEASE));
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> started.isDone() || lockWaits() > 0);
            other.commit();

            assertThat(started.get(20, java.util.concurrent.TimeUnit.SECONDS)).containsExactly(1, 0, 1);
        }
        assertThat(store.query(DurableTaskQuery.all()))
                .extracting(DurableTaskInfo::key, DurableTaskInfo::state)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("a", DurableTaskState.RUNNING),
                        org.assertj.core.groups.Tuple.tuple("b", DurableTaskState.CLAIMED),
                        org.assertj.core.groups.Tuple.tuple("c", DurableTaskState.RUNNING));
    }

    /** Transactions waiting for a row lock now, as this database lists them. */
    private int lockWaits() {
        String waits = switch (kind()) {
            case POSTGRESQL -> "SELECT COUNT(*) FROM pg_locks WHERE NOT granted";
            case MARIADB -> "SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS";
            case H2 -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
        };
        Integer count = new org.springframework.jdbc.core.JdbcTemplate(dataSource).queryForObject(waits, Integer.class);
        return count == null ? 0 : count;
    }

    /** A start succeeds once, and only for the instance holding the claim. */
    @Test
    void shouldStartOnlyUnderTheHoldersClaimAndOnlyOnce() {
        store.upsert("mail", "k", null, null, now());
        ClaimedTask claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);

        assertThat(store.start(claimed, "b", LEASE)).isFalse();
        assertThat(store.start(claimed, "a", LEASE)).isTrue();
        assertThat(store.start(claimed, "a", LEASE)).isFalse();
        assertThat(store.query(DurableTaskQuery.all()).get(0).attempts()).isEqualTo(1);
    }

    /** An expired claim is taken over, and the former holder can neither start nor complete it. */
    @Test
    void shouldRescueExpiredClaimsAndRefuseTheZombiesCompletion() {
        store.upsert("mail", "k", null, null, now());
        ClaimedTask zombie =
                store.claimDue("a", LOOKAHEAD, EXPIRED, HANDLERS, 1).get(0);
        assertThat(store.start(zombie, "a", EXPIRED)).isTrue();

        List<ClaimedTask> rescued = store.claimExpired("b", LEASE, HANDLERS, 100);

        assertThat(rescued).extracting(ClaimedTask::id).containsExactly(zombie.id());
        assertThat(rescued.get(0).version()).isGreaterThan(zombie.version());
        assertThat(store.completeOnce(zombie)).isFalse();
        assertThat(store.fail(zombie, false, "late", Duration.ZERO)).isFalse();
        assertThat(store.start(rescued.get(0), "b", LEASE)).isTrue();
        assertThat(store.completeOnce(rescued.get(0))).isTrue();
        assertThat(store.query(DurableTaskQuery.all())).isEmpty();
    }

    /** Live claims are not rescued; a heartbeat keeps expiring ones alive. */
    @Test
    void shouldKeepClaimsAliveWithAHeartbeat() {
        store.upsert("mail", "k", null, null, now());
        store.claimDue("a", LOOKAHEAD, EXPIRED, HANDLERS, 1);

        assertThat(store.renewLeases("a", LEASE)).isEqualTo(1);

        assertThat(store.claimExpired("b", LEASE, HANDLERS, 100)).isEmpty();
    }

    /**
     * A renewal bounded by {@code endingWithin} rewrites only the claims whose lease ends within it:
     * one claimed just now keeps its row as written.
     */
    @Test
    void shouldRenewOnlyTheClaimsWhoseLeaseEndsSoon() {
        store.upsert("mail", "ending", null, null, now());
        store.claimDue("a", LOOKAHEAD, EXPIRED, HANDLERS, 1);
        store.upsert("mail", "fresh", null, null, now());
        ClaimedTask fresh = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        assertThat(fresh.key()).isEqualTo("fresh");

        assertThat(store.renewLeases("a", LEASE, LEASE.dividedBy(2))).isEqualTo(1);

        assertThat(store.claimExpired("b", LEASE, HANDLERS, 100)).isEmpty();
        assertThat(store.start(fresh, "a", LEASE))
                .as("the fresh claim is untouched")
                .isTrue();
    }

    /** Counts stop at their limit, so that their cost does not grow with the backlog. */
    @Test
    void shouldCountUpToALimit() {
        for (int i = 0; i < 3; i++) {
            store.upsert("mail", "k" + i, null, null, now());
        }
        store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1);

        assertThat(store.countWaiting()).isEqualTo(3);
        assertThat(store.countWaiting(2)).isEqualTo(2);
        assertThat(store.countsByState())
                .containsExactly(
                        org.assertj.core.api.Assertions.entry("PENDING", 2L),
                        org.assertj.core.api.Assertions.entry("CLAIMED", 1L),
                        org.assertj.core.api.Assertions.entry("RUNNING", 0L),
                        org.assertj.core.api.Assertions.entry("FAILED", 0L));
        assertThat(store.countsByState(1))
                .containsEntry("PENDING", 1L)
                .containsEntry("CLAIMED", 1L)
                .containsEntry("FAILED", 0L);
    }

    /** A failed attempt goes back to PENDING after its backoff with its error; the last one FAILS. */
    @Test
    void shouldRetryAFailureAndKeepTheLastOneAsFailed() {
        store.upsert("mail", "k", null, null, now());
        ClaimedTask first = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        store.start(first, "a", LEASE);

        assertThat(store.fail(first, false, "boom 1", Duration.ofMinutes(1))).isTrue();
        DurableTaskInfo retried = store.query(DurableTaskQuery.all()).get(0);
        assertThat(retried.state()).isEqualTo(DurableTaskState.PENDING);
        assertThat(retried.lastError()).isEqualTo("boom 1");
        assertThat(retried.dueAt()).isAfter(retried.fireAt());
        assertThat(store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1)).isEmpty();

        store.reschedule("mail", "k", now());
        ClaimedTask second = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        store.start(second, "a", LEASE);
        assertThat(store.fail(second, true, "boom 2", Duration.ZERO)).isTrue();

        DurableTaskInfo failed = store.query(DurableTaskQuery.all().state(DurableTaskState.FAILED))
                .get(0);
        assertThat(failed.lastError()).isEqualTo("boom 2");
        assertThat(store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1)).isEmpty();
        assertThat(store.countWaiting()).isZero();
    }

    /** A recurring task's completion sets its next fire instead of deleting it. */
    @Test
    void shouldMoveARecurringTaskToItsNextFire() {
        Instant fire = now();
        store.upsert("mail", "k", null, "every:PT1H", fire);
        ClaimedTask claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 1).get(0);
        store.start(claimed, "a", LEASE);

        assertThat(store.completeRecurring(claimed, fire.plusSeconds(3600), null))
                .isTrue();

        DurableTaskInfo row = store.query(DurableTaskQuery.all()).get(0);
        assertThat(row.state()).isEqualTo(DurableTaskState.PENDING);
        assertThat(row.fireAt()).isEqualTo(row.dueAt());
        assertThat(Duration.between(fire, row.fireAt())).isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));
        assertThat(row.attempts()).isZero();
    }

    /** Claims that have not started go back at once on release; started ones stay. */
    @Test
    void shouldReleaseOnlyClaimsThatHaveNotStarted() {
        store.upsert("mail", "a1", null, null, now());
        store.upsert("mail", "a2", null, null, now());
        List<ClaimedTask> claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 2);
        store.start(claimed.get(0), "a", LEASE);

        assertThat(store.releaseAll("a", List.of())).isEqualTo(1);

        assertThat(store.start(claimed.get(1), "a", LEASE)).isFalse();
        assertThat(store.claimDue("b", LOOKAHEAD, LEASE, HANDLERS, 10))
                .extracting(ClaimedTask::id)
                .containsExactly(claimed.get(1).id());
    }

    /**
     * A hand-back keeps the claims of the tasks named as running here, and gives the others back
     * under a new version, so that a late outcome of the old claim is refused.
     */
    @Test
    void shouldKeepRunningClaimsAndFenceTheOthersOnRelease() {
        store.upsert("mail", "kept", null, null, now());
        store.upsert("mail", "back", null, null, now());
        List<ClaimedTask> claimed = store.claimDue("a", LOOKAHEAD, LEASE, HANDLERS, 2);
        ClaimedTask kept = claimed.get(0);
        ClaimedTask back = claimed.get(1);

        assertThat(store.releaseAll("a", List.of(kept.id()))).isEqualTo(1);

        assertThat(store.completeOnce(back))
                .as("late outcome of a handed-back claim")
                .isFalse();
        assertThat(store.claimDue("b", LOOKAHEAD, LEASE, HANDLERS, 10))
                .extracting(ClaimedTask::id)
                .containsExactly(back.id());
        assertThat(store.completeOnce(kept)).as("outcome of a kept claim").isTrue();
    }

    /** One task can be claimed by id when it is due within the lookahead. */
    @Test
    void shouldClaimOneTaskById() {
        long soon = store.upsert("mail", "soon", null, null, now().plusSeconds(1));
        long later = store.upsert("mail", "later", null, null, now().plusSeconds(60));

        assertThat(store.claimOne("a", later, LOOKAHEAD, LEASE)).isEmpty();
        assertThat(store.claimOne("a", soon, LOOKAHEAD, LEASE))
                .hasValueSatisfying(t -> assertThat(t.id()).isEqualTo(soon));
        assertThat(store.claimOne("b", soon, LOOKAHEAD, LEASE)).isEmpty();
    }

    /** The query narrows by handler, state and due time. */
    @Test
    void shouldQueryByHandlerStateAndDueTime() {
        Instant base = now();
        store.upsert("mail", "1", null, null, base.plusSeconds(10));
        store.upsert("mail", "2", null, null, base.plusSeconds(20));
        store.upsert("sms", "3", null, null, base.plusSeconds(30));

        assertThat(store.query(DurableTaskQuery.all().handler("mail")))
                .extracting(DurableTaskInfo::key)
                .containsExactly("1", "2");
        assertThat(store.query(
                        DurableTaskQuery.all().dueFrom(base.plusSeconds(15)).dueBefore(base.plusSeconds(25))))
                .extracting(DurableTaskInfo::key)
                .containsExactly("2");
        assertThat(store.query(
                        DurableTaskQuery.all().state(DurableTaskState.PENDING).limit(1)))
                .extracting(DurableTaskInfo::key)
                .containsExactly("1");
    }

    private JdbcDialect dialect() {
        return switch (kind()) {
            case POSTGRESQL -> JdbcDialect.POSTGRESQL;
            case H2 -> JdbcDialect.H2;
            case MARIADB -> JdbcDialect.MARIADB;
        };
    }

    private static List<Long> ids(List<ClaimedTask> tasks) {
        return tasks.stream().map(ClaimedTask::id).toList();
    }
}
