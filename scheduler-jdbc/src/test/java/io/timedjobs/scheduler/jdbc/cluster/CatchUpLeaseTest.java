package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.support.SimpleTriggerContext;

/** The run lease a catch-up run took is given back whatever happens to the claim of its missed fire. */
class CatchUpLeaseTest {

    private static final Duration HORIZON = Duration.ofMinutes(1);

    private static final CatchUpPolicy EACH = new CatchUpPolicy(Policy.EACH, Duration.ofHours(1), 10);

    /**
     * A claim of a missed fire that fails after the run lease was taken gives the lease back: the
     * next fire runs on another instance, and no fire is recorded as STILL_RUNNING while nothing runs.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReleaseTheRunLeaseWhenTheClaimOfAMissedFireFails(TestDatabases.Kind kind) {
        FailingStatements failing = new FailingStatements(OncePerFireTest.createTables(kind));
        ClusterDatabase database = ClusterDatabase.of(failing, TableNames.defaults());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        clock.measure();
        List<Instant> ran = new CopyOnWriteArrayList<>();
        CronJob a = job(database, history, clock, "a", ran);
        a.catchUp(EACH);
        a.nextExecution(new SimpleTriggerContext()); // registers the job's row
        Instant missed = clock.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(5);

        failing.failNext("caught_up_to IS NULL OR caught_up_to < ?", 1);
        CatchUpRun.of(a, EACH).run(missed);

        assertThat(failing.left()).as("the claim failed").isZero();
        assertThat(ran).isEmpty();
        assertThat(new JdbcTemplate(failing)
                        .queryForList("SELECT lease_owner FROM timed_jobs_jobs WHERE job_name = 'job'", String.class))
                .as("the run lease, given back")
                .containsExactly((String) null);
        CronJob b = job(database, history, clock, "b", ran);
        b.nextExecution(new SimpleTriggerContext());
        Instant next = clock.now().truncatedTo(ChronoUnit.SECONDS);
        b.runFire(next);
        assertThat(ran).as("the next fire ran").containsExactly(next);
        assertThat(history.find(RunHistoryQuery.all().job("job").skipReason(SkipReason.STILL_RUNNING)))
                .as("no fire held back by a run that does not exist")
                .isEmpty();
    }

    private static CronJob job(
            ClusterDatabase database, RunHistory history, DatabaseClock clock, String name, List<Instant> ran) {
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), name, Duration.ofSeconds(30));
        instance.register();
        JobContext context = new JobContext(
                new JobStore(database, instance, history),
                clock,
                new ClusterJobStats(),
                new OutageLog(CatchUpLeaseTest.class, "catch-up lease"),
                Duration.ofSeconds(1),
                Duration.ofMinutes(10),
                HORIZON);
        return new CronJob(
                "job",
                () -> ran.add(java.util.Objects.requireNonNull(ClusteredJobs.currentFire())),
                context,
                "* * * * * *",
                ZoneOffset.UTC);
    }
}
