package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** The SQL of clustered jobs, one decision at a time, on both databases; instances a and b take turns. */
class JobStoreTest {

    private static final Duration HORIZON = Duration.ofMinutes(1);
    private static final Duration LONG = Duration.ofMinutes(10);
    private static final JobDefinition CRON = new JobDefinition("cron", "* * * * * *", "UTC", Duration.ZERO);
    private static final JobDefinition DELAY = new JobDefinition("fixed-delay", "PT1S", null, Duration.ZERO);

    private record Fixture(JdbcTemplate jdbc, JdbcDialect dialect, JobStore a, JobStore b, ClusterInstance instanceA) {}

    private static Fixture fixture(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        ClusterInstance a = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "a", Duration.ofSeconds(30));
        ClusterInstance b = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "b", Duration.ofSeconds(30));
        a.register();
        b.register();
        return new Fixture(
                database.jdbc(), database.dialect(), new JobStore(database, a), new JobStore(database, b), a);
    }

    private static Instant now(Fixture f) {
        return f.dialect().currentTime(f.jdbc());
    }

    /** A fire is recorded once; fires beyond the horizon, past or future, are refused; pruning deletes old records. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordEachFireOnceWithinTheHorizon(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        Instant fire = now(f).truncatedTo(ChronoUnit.SECONDS);
        f.a().definitions().register("job", CRON, null, null);

        assertThat(f.a().recordFire("job", CRON.key(), fire, HORIZON)).isTrue();
        assertThat(f.b().recordFire("job", CRON.key(), fire, HORIZON)).isFalse();
        assertThat(f.a().recordFire("job", CRON.key(), fire, HORIZON)).isFalse();
        assertThat(f.b().recordFire("job", CRON.key(), fire.plusSeconds(1), HORIZON))
                .isTrue();
        assertThat(f.a().recordFire("job", CRON.key(), fire.minus(HORIZON).minusSeconds(5), HORIZON))
                .isFalse();
        assertThat(f.a().recordFire("job", CRON.key(), fire.plus(HORIZON).plusSeconds(5), HORIZON))
                .isFalse();

        f.jdbc()
                .update(
                        "INSERT INTO timed_jobs_fires (job_name, fire_at, instance_name, recorded_at) VALUES (?, ?, 'a', ?)",
                        "job",
                        f.dialect().bind(fire.minus(Duration.ofMinutes(5))),
                        f.dialect().bind(fire));
        assertThat(f.a().pruneFires(HORIZON.multipliedBy(2))).isEqualTo(1);
        assertThat(f.jdbc().queryForObject("SELECT COUNT(*) FROM timed_jobs_fires", Integer.class))
                .isEqualTo(2);
    }

    /**
     * Of a run lease holder's fires of its job, a prune keeps only the latest: a job one instance
     * runs back to back does not keep every fire it recorded.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepOnlyTheHoldersLatestFireOfItsJob(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        Instant now = now(f).truncatedTo(ChronoUnit.SECONDS);
        f.a().definitions().register("job", CRON, null, null);
        f.a().definitions().register("other", CRON, null, null);
        for (int minute = 10; minute >= 5; minute--) {
            insertFire(f, "job", now.minus(Duration.ofMinutes(minute)), "a");
            insertFire(f, "other", now.minus(Duration.ofMinutes(minute)), "a");
        }
        insertFire(f, "job", now.minus(Duration.ofMinutes(4)), "b");
        assertThat(f.a().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN);

        assertThat(f.b().pruneFires(HORIZON.multipliedBy(2))).isEqualTo(12);

        assertThat(f.jdbc().queryForList("SELECT job_name, instance_name FROM timed_jobs_fires"))
                .singleElement()
                .satisfies(row -> assertThat(row.values()).containsExactly("job", "a"));
    }

    private static void insertFire(Fixture f, String job, Instant fire, String instance) {
        f.jdbc()
                .update(
                        "INSERT INTO timed_jobs_fires (job_name, fire_at, instance_name, recorded_at) VALUES (?, ?, ?, ?)",
                        job,
                        f.dialect().bind(fire),
                        instance,
                        f.dialect().bind(fire));
    }

    /**
     * A fire skipped while the job is paused is claimed, so an instance that finds the job resumed
     * a moment later cannot run it; and a fire already run cannot then be claimed as skipped: of a
     * skip and a run of one fire, the first written stands, in either order.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldLetOnlyOneOfASkipAndARunHaveAFire(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        Instant fire = now(f).truncatedTo(ChronoUnit.SECONDS);
        f.a().definitions().register("job", CRON, null, null);

        f.a().setPaused("job", true);
        assertThat(f.a().recordFireAndLease("job", CRON.key(), fire, HORIZON, LONG)
                        .attempt()
                        .recorded())
                .as("paused: not recorded")
                .isFalse();
        assertThat(f.a().claimFire("job", fire, HORIZON))
                .as("a claims the paused fire")
                .isTrue();
        f.a().setPaused("job", false);
        assertThat(f.b().recordFireAndLease("job", CRON.key(), fire, HORIZON, LONG)
                        .attempt()
                        .recorded())
                .as("resumed, but the fire was claimed as skipped")
                .isFalse();
        assertThat(f.b().claimFire("job", fire, HORIZON)).isFalse();

        Instant next = fire.plusSeconds(1);
        assertThat(f.b().recordFireAndLease("job", CRON.key(), next, HORIZON, LONG)
                        .attempt()
                        .recorded())
                .isTrue();
        assertThat(f.a().claimFire("job", next, HORIZON))
                .as("run already: no skip")
                .isFalse();
        assertThat(f.a().claimFire("job", fire.minus(HORIZON).minusSeconds(1), HORIZON))
                .as("past the horizon, no fire gets a record: a skip written then meets no claim")
                .isFalse();
        assertThat(f.a().claimFire("job", fire.minus(HORIZON).plusSeconds(5), HORIZON))
                .isTrue();
    }

    /** The run lease is exclusive, released by its holder, and taken over once expired or its holder is dead. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldHandOverTheRunLeaseOnlyWhenFreeExpiredOrDead(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        f.a().definitions().register("job", CRON, null, null);

        assertThat(f.a().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN);
        assertThat(f.b().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.BUSY);
        f.a().releaseLease("job");
        assertThat(f.b().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN);

        // b's run is past its maximum run time.
        f.jdbc()
                .update(
                        "UPDATE timed_jobs_jobs SET lease_until = ?",
                        f.dialect().bind(now(f).minusSeconds(1)));
        assertThat(f.a().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN_OVER);

        // a dies: no heartbeat for longer than the lease.
        f.jdbc()
                .update(
                        "UPDATE timed_jobs_instances SET heartbeat_at = ? WHERE instance_name = 'a'",
                        f.dialect().bind(now(f).minusSeconds(31)));
        assertThat(f.b().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.TAKEN_OVER);
        f.instanceA().heartbeat();
        assertThat(f.a().acquireLease("job", LONG)).isEqualTo(JobStore.Lease.BUSY);
    }

    /**
     * Recording a fire takes the run lease with it (in one statement on PostgreSQL): a fire lost
     * takes no lease, a recorded one finds the lease free, busy, expired or its holder dead, as
     * {@link JobStore#acquireLease} would; the take-over is told only when the holder was stale as
     * the statement began.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTakeTheRunLeaseWithTheFireItRecords(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        f.a().definitions().register("job", CRON, null, null);
        Instant fire = now(f).truncatedTo(ChronoUnit.SECONDS);

        JobStore.FireAndLease first = f.a().recordFireAndLease("job", CRON.key(), fire, HORIZON, LONG);
        assertThat(first.attempt().recorded()).isTrue();
        assertThat(first.lease()).isEqualTo(JobStore.Lease.TAKEN);
        assertThat(f.a().heldLeases()).containsExactly("job");

        JobStore.FireAndLease lost = f.b().recordFireAndLease("job", CRON.key(), fire, HORIZON, LONG);
        assertThat(lost.attempt().recorded()).isFalse();
        assertThat(lost.lease()).as("a lost fire takes no lease").isNull();
        assertThat(f.b().heldLeases()).isEmpty();

        JobStore.FireAndLease busy = f.b().recordFireAndLease("job", CRON.key(), fire.plusSeconds(1), HORIZON, LONG);
        assertThat(busy.attempt().recorded()).isTrue();
        assertThat(busy.lease()).as("a's run still holds it").isEqualTo(JobStore.Lease.BUSY);

        f.a().releaseLease("job");
        assertThat(f.b().recordFireAndLease("job", CRON.key(), fire.plusSeconds(2), HORIZON, LONG)
                        .lease())
                .isEqualTo(JobStore.Lease.TAKEN);

        // b's run is past its maximum run time.
        f.jdbc()
                .update(
                        "UPDATE timed_jobs_jobs SET lease_until = ?",
                        f.dialect().bind(now(f).minusSeconds(1)));
        assertThat(f.a().recordFireAndLease("job", CRON.key(), fire.plusSeconds(3), HORIZON, LONG)
                        .lease())
                .isEqualTo(JobStore.Lease.TAKEN_OVER);

        // a dies: no heartbeat for longer than the lease.
        f.jdbc()
                .update(
                        "UPDATE timed_jobs_instances SET heartbeat_at = ? WHERE instance_name = 'a'",
                        f.dialect().bind(now(f).minusSeconds(31)));
        assertThat(f.b().recordFireAndLease("job", CRON.key(), fire.plusSeconds(4), HORIZON, LONG)
                        .lease())
                .isEqualTo(JobStore.Lease.TAKEN_OVER);

        // paused: nothing recorded, no lease, and the loser learns why in the same statement where it can
        f.jdbc().update("UPDATE timed_jobs_jobs SET user_paused = TRUE");
        JobStore.FireAndLease paused = f.a().recordFireAndLease("job", CRON.key(), fire.plusSeconds(5), HORIZON, LONG);
        assertThat(paused.attempt().recorded()).isFalse();
        assertThat(paused.lease()).isNull();
        if (paused.attempt().known()) {
            assertThat(paused.attempt().paused()).isTrue();
        }
    }

    /**
     * A lease given up still counts as held until the heartbeat's next poll: a run frozen past its
     * lease ends as the process resumes, before the heartbeat finds the silence it was held through.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReportALeaseGivenUpSinceTheLastPoll(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        f.a().definitions().register("job", CRON, null, null);
        f.a().acquireLease("job", LONG);
        assertThat(f.a().heldSinceLastPoll()).containsExactly("job");

        f.a().releaseLease("job");

        assertThat(f.a().heldLeases()).isEmpty();
        assertThat(f.a().heldSinceLastPoll()).as("given up since the last poll").containsExactly("job");
        f.a().pollBegins();
        f.a().polled();
        assertThat(f.a().heldSinceLastPoll()).isEmpty();
    }

    /**
     * A lease given up while a poll runs (a process frozen inside the poll's actions resumes there,
     * and its run ends) is still reported after that poll ends, to the next poll's silence check.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReportALeaseGivenUpDuringAPollUntilTheNextPollEnds(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        f.a().definitions().register("job", CRON, null, null);
        f.a().acquireLease("job", LONG);

        f.a().pollBegins();
        f.a().releaseLease("job");
        f.a().polled();

        assertThat(f.a().heldSinceLastPoll())
                .as("given up after the poll began")
                .containsExactly("job");
        f.a().pollBegins();
        f.a().polled();
        assertThat(f.a().heldSinceLastPoll()).isEmpty();
    }

    /**
     * A fixed-delay fire is claimed once, only when due; completion sets the next fire a delay
     * after it; a dead holder's run is ended as if completed, without running its fire again.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldClaimFixedDelayFiresOnceAndRecoverFromADeadHolder(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        Instant start = now(f).plusSeconds(30);
        JobStore.JobRow row = f.a().definitions().register("job", DELAY, null, start);
        Instant first = row.nextFireAt();
        assertThat(first).isEqualTo(start.truncatedTo(ChronoUnit.MICROS));

        assertThat(f.a().delayed().claimDelayedFire("job", DELAY.key(), first, Duration.ZERO, LONG))
                .as("not due yet")
                .isFalse();
        f.jdbc()
                .update(
                        "UPDATE timed_jobs_jobs SET next_fire_at = ?",
                        f.dialect().bind(now(f).minusMillis(10)));
        Instant due = f.a().read("job").nextFireAt();
        assertThat(f.b().delayed().claimDelayedFire("job", DELAY.key(), due, Duration.ZERO, LONG))
                .isTrue();
        assertThat(f.a().delayed().claimDelayedFire("job", DELAY.key(), due, Duration.ZERO, LONG))
                .isFalse();
        assertThat(f.a().read("job").leaseOwner()).isEqualTo("b");
        assertThat(f.a().delayed().expireDelayedRun("job", "b", Duration.ofSeconds(1)))
                .as("b is alive")
                .isFalse();

        f.b().delayed().completeDelayedFire("job", DELAY.key(), Duration.ofSeconds(5));
        JobStore.JobRow completed = f.a().read("job");
        assertThat(completed.leaseOwner()).isNull();
        assertThat(Duration.between(now(f), completed.nextFireAt()))
                .isBetween(Duration.ofSeconds(3), Duration.ofSeconds(5));

        f.jdbc()
                .update(
                        "UPDATE timed_jobs_jobs SET next_fire_at = ?",
                        f.dialect().bind(now(f).minusMillis(10)));
        assertThat(f.b().delayed()
                        .claimDelayedFire("job", DELAY.key(), f.a().read("job").nextFireAt(), Duration.ZERO, LONG))
                .isTrue();
        f.jdbc().update("DELETE FROM timed_jobs_instances WHERE instance_name = 'b'");
        assertThat(f.a().delayed().expireDelayedRun("job", "b", Duration.ofSeconds(5)))
                .as("b is dead")
                .isTrue();
        JobStore.JobRow recovered = f.a().read("job");
        assertThat(recovered.leaseOwner()).isNull();
        assertThat(recovered.nextFireAt()).isAfter(now(f).plusSeconds(3));
    }
}
