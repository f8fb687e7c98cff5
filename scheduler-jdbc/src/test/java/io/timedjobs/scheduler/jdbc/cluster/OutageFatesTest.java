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
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * The fires an instance skipped while it could not reach the database are written as {@code
 * DATABASE_DOWN} once it is back, for a job without a catch-up policy; a job with one lists the
 * fires of the outage itself once it ends, and runs or drops each ({@code MISSED}), so its fires
 * get no {@code DATABASE_DOWN} beside that fate.
 */
class OutageFatesTest {

    private static final Duration HORIZON = Duration.ofSeconds(5);

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteDatabaseDownOnlyForJobsWithoutACatchUpPolicy(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(OncePerFireTest.createTables(kind), TableNames.defaults());
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        CronJob plain = job(database, history, "plain", null);
        CronJob catching = job(database, history, "catching", new CatchUpPolicy(Policy.EACH, Duration.ofDays(1), 24));
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(60);
        Instant last = first.plusSeconds(9);

        for (CronJob job : new CronJob[] {plain, catching}) {
            job.fates.down(first, last, 10);
            job.fates.back();
        }

        assertThat(history.find(RunHistoryQuery.all().job("plain").skipReason(SkipReason.DATABASE_DOWN)))
                .singleElement()
                .satisfies(record -> assertThat(record.fires()).isEqualTo(10));
        assertThat(history.find(RunHistoryQuery.all().job("catching"))).isEmpty();
    }

    private static CronJob job(
            ClusterDatabase database, RunHistory history, String name, @Nullable CatchUpPolicy policy) {
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        clock.measure();
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), name + "-instance", Duration.ofSeconds(30));
        instance.register();
        JobContext context = new JobContext(
                new JobStore(database, instance, history),
                clock,
                new ClusterJobStats(),
                new OutageLog(OutageFatesTest.class, "outage fates"),
                Duration.ofSeconds(1),
                Duration.ofMinutes(10),
                HORIZON);
        CronJob job = new CronJob(name, () -> {}, context, "* * * * * *", ZoneOffset.UTC);
        if (policy != null) {
            job.catchUp(policy);
        }
        job.nextExecution(new SimpleTriggerContext()); // registers the job's row
        return job;
    }
}
