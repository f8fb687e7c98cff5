package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * A clustered fire whose instance died mid-run (its run begun, its end never written) has a fate:
 * one record of that instance's run, {@link RunOutcome#ABANDONED}, written by whoever finds it, once
 * across the cluster, and never over a record the fire has.
 */
class AbandonedRunTest {

    private static final Duration HORIZON = Duration.ofMinutes(1);
    private static final Duration MAX_RUN = Duration.ofMinutes(10);

    /**
     * The next fire's winner takes a dead holder's lease over and records the holder's fire as
     * abandoned, once: a second finder writes nothing, a fire whose end was written late gets nothing,
     * and the holder's fire survives the pruning of the fires table until it is found.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordTheRunOfADeadHolderAsAbandonedOnceWhenItsLeaseIsTakenOver(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(OncePerFireTest.createTables(kind), TableNames.defaults());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        ClusterInstance dead = instance(database, "dead");
        ClusterInstance taker = instance(database, "taker");
        JobStore deadStore = new JobStore(database, dead, history);
        JobStore takerStore = new JobStore(database, taker, history);
        AtomicInteger runs = new AtomicInteger();
        CronJob job = job(database, takerStore, runs::incrementAndGet);
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(10);
        assertThat(deadStore.recordFire("job", job.key(), first, HORIZON)).isTrue();
        assertThat(deadStore.acquireLease("job", MAX_RUN)).isEqualTo(JobStore.Lease.TAKEN);
        silence(database, "dead");
        takerStore.pruneFires(Duration.ZERO); // the holder's fire is kept while it holds the lease

        job.runFire(first.plusSeconds(1));

        assertThat(runs).hasValue(1);
        List<RunRecord> abandoned = abandoned(history);
        assertThat(abandoned).singleElement().satisfies(run -> {
            assertThat(run.fireAt()).isEqualTo(first);
            assertThat(run.instance()).isEqualTo("dead");
            assertThat(run.error())
                    .contains("Instance dead began this run")
                    .contains("its end is unknown")
                    .contains("instance taker took its run lease over");
            assertThat(run.skipReason()).isNull();
            assertThat(run.startedAt())
                    .isBefore(run.startedAt().plus(run.duration()).plusMillis(1));
        });
        assertThat(history.find(RunHistoryQuery.all().job("job").outcome(RunOutcome.SUCCEEDED)))
                .singleElement()
                .satisfies(run -> assertThat(run.instance()).isEqualTo("taker"));
        assertThat(history.find(RunHistoryQuery.all().job("job").failures()))
                .as("an abandoned run is among the failures")
                .singleElement()
                .satisfies(run -> assertThat(run.outcome()).isEqualTo(RunOutcome.ABANDONED));

        // another instance that finds it too writes nothing
        ClusterInstance second = instance(database, "second");
        assertThat(history.abandoned().takenOver("job", second, () -> true)).isZero();
        assertThat(abandoned(history)).hasSize(1);

        // a holder whose end was written late, before its lease was taken over: its record stands
        Instant third = first.plusSeconds(2);
        ClusterInstance late = instance(database, "late");
        JobStore lateStore = new JobStore(database, late, history);
        assertThat(lateStore.recordFire("job", job.key(), third, HORIZON)).isTrue();
        assertThat(lateStore.acquireLease("job", MAX_RUN)).isEqualTo(JobStore.Lease.TAKEN);
        history.complete(() -> true, FinishedRun.ofJob("job", third, "late", 1_000_000, null, false), true);
        silence(database, "late");

        job.runFire(first.plusSeconds(3));

        assertThat(runs).hasValue(2);
        assertThat(abandoned(history)).hasSize(1);
        assertThat(history.find(RunHistoryQuery.all().job("job").outcome(RunOutcome.SUCCEEDED)))
                .extracting(RunRecord::fireAt)
                .containsExactlyInAnyOrder(first.plusSeconds(1), third, first.plusSeconds(3));
    }

    /**
     * A holder only frozen past its lease, whose run was recorded abandoned when the next fire took
     * its lease over, writes its own end when it comes back: that record stands alone, one fate for
     * the fire.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepOnlyTheRealEndOfARunRecordedAbandonedWhileItsHolderWasFrozen(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(OncePerFireTest.createTables(kind), TableNames.defaults());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        JobStore frozenStore = new JobStore(database, instance(database, "frozen"), history);
        JobStore takerStore = new JobStore(database, instance(database, "taker"), history);
        CronJob job = job(database, takerStore, () -> {});
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(10);
        assertThat(frozenStore.recordFire("job", job.key(), first, HORIZON)).isTrue();
        assertThat(frozenStore.acquireLease("job", MAX_RUN)).isEqualTo(JobStore.Lease.TAKEN);
        silence(database, "frozen");
        job.runFire(first.plusSeconds(1));
        assertThat(abandoned(history))
                .singleElement()
                .satisfies(run -> assertThat(run.fireAt()).isEqualTo(first));

        // it comes back, its lease lost, and writes the end of its run
        assertThat(frozenStore.releaseLease("job", first, 2_000_000, null)).isFalse();

        assertThat(abandoned(history)).isEmpty();
        assertThat(history.find(
                        RunHistoryQuery.all().job("job").firesFrom(first).firesTo(first.plusMillis(1))))
                .singleElement()
                .satisfies(run -> {
                    assertThat(run.outcome()).isEqualTo(RunOutcome.SUCCEEDED);
                    assertThat(run.instance()).isEqualTo("frozen");
                });
    }

    /**
     * While an instance of schema version 5 or 6 is alive (it reads every outcome by name, and knows
     * no {@code ABANDONED}), a dead holder's run taken over gets no record.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteNoAbandonedRunWhileAVersion5InstanceIsAlive(TestDatabases.Kind kind) {
        noAbandonedRunBeside(kind, 5);
    }

    /** As above, beside an instance of schema version 6, which writes skips but knows no abandoned run. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteNoAbandonedRunWhileAVersion6InstanceIsAlive(TestDatabases.Kind kind) {
        noAbandonedRunBeside(kind, 6);
    }

    private void noAbandonedRunBeside(TestDatabases.Kind kind, int version) {
        ClusterDatabase database = ClusterDatabase.of(OncePerFireTest.createTables(kind), TableNames.defaults());
        database.jdbc()
                .update(
                        "INSERT INTO " + database.tables().instances()
                                + " (instance_name, started_at, heartbeat_at, schema_version) VALUES ('old', ?, ?, "
                                + version + ")",
                        database.dialect().bind(Instant.now()),
                        database.dialect().bind(Instant.now()));
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        JobStore deadStore = new JobStore(database, instance(database, "dead"), history);
        AtomicInteger runs = new AtomicInteger();
        CronJob job =
                job(database, new JobStore(database, instance(database, "taker"), history), runs::incrementAndGet);
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(10);
        assertThat(deadStore.recordFire("job", job.key(), first, HORIZON)).isTrue();
        assertThat(deadStore.acquireLease("job", MAX_RUN)).isEqualTo(JobStore.Lease.TAKEN);
        silence(database, "dead");

        job.runFire(first.plusSeconds(1));

        assertThat(runs).hasValue(1);
        assertThat(abandoned(history)).isEmpty();
    }

    /**
     * An instance that starts under the name of a process that died holding a lease records that
     * process's fire as abandoned as it registers, once, naming it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordTheRunOfADeadPredecessorAsAbandonedWhenAnInstanceStartsUnderItsName(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        ClusterInstance before = instance(database, "phoenix");
        JobStore beforeStore = new JobStore(database, before, history);
        CronJob job = job(database, beforeStore, () -> {});
        Instant fire = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(5);
        assertThat(beforeStore.recordFire("job", job.key(), fire, HORIZON)).isTrue();
        assertThat(beforeStore.acquireLease("job", MAX_RUN)).isEqualTo(JobStore.Lease.TAKEN);
        silence(database, "phoenix"); // killed

        try (ConfigurableApplicationContext after = TestInstance.start(
                dataSource,
                "phoenix",
                Duration.ZERO,
                TestInstance.Settings.shrunk(),
                RunHistorySettings.defaults(),
                new RunLog(),
                Nightly.class)) {
            assertThat(abandoned(history)).singleElement().satisfies(run -> {
                assertThat(run.fireAt()).isEqualTo(fire);
                assertThat(run.instance()).isEqualTo("phoenix");
                assertThat(run.error()).contains("registered again under the same name");
            });
            ClusterInstance again = after.getBean(ClusterHeartbeat.class).instance();
            assertThat(history.abandoned().leftBehind(again, () -> true)).isZero();
        }
        assertThat(abandoned(history)).hasSize(1);
    }

    /** A clustered job that does not fire during a test: the instance only starts. */
    static class Nightly {
        @Scheduled(cron = "0 0 3 * * *")
        void nightly() {}
    }

    private static List<RunRecord> abandoned(RunHistory history) {
        return history.find(RunHistoryQuery.all().job("job").outcome(RunOutcome.ABANDONED));
    }

    /** A cron job every second, run by {@code store}'s instance; its row registered. */
    private static CronJob job(ClusterDatabase database, JobStore store, Runnable task) {
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        clock.measure();
        JobContext context = new JobContext(
                store,
                clock,
                new ClusterJobStats(),
                new OutageLog(AbandonedRunTest.class, "abandoned runs"),
                Duration.ofSeconds(1),
                MAX_RUN,
                HORIZON);
        CronJob job = new CronJob("job", task, context, "* * * * * *", ZoneOffset.UTC);
        job.nextExecution(new SimpleTriggerContext());
        return job;
    }

    /** Makes the instance's heartbeat an hour old: dead to the others. */
    private static void silence(ClusterDatabase database, String name) {
        database.jdbc()
                .update(
                        "UPDATE " + database.tables().instances() + " SET heartbeat_at = ? WHERE instance_name = ?",
                        database.dialect().bind(Instant.now().minus(Duration.ofHours(1))),
                        name);
    }

    private static ClusterInstance instance(ClusterDatabase database, String name) {
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), name, Duration.ofSeconds(30));
        instance.register();
        return instance;
    }
}
