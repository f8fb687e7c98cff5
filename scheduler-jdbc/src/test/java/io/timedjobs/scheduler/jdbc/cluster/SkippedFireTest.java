package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.InstanceSql;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * The loser of a clustered fire learns why it lost from the statement that lost, where the
 * database can fold the read into it (PostgreSQL): no {@code SELECT} of the job's row only to label
 * the skip. Elsewhere (H2) it reads the row in a second statement, and the label is the same.
 */
class SkippedFireTest {

    private static final Duration HORIZON = Duration.ofMinutes(1);

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldLabelASkippedFireWithoutAReadOfItsOwn(TestDatabases.Kind kind) {
        StatementLog log = new StatementLog(OncePerFireTest.createTables(kind));
        ClusterDatabase database = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        ClusterInstance winner = instance(database, "winner");
        ClusterInstance loser = instance(database, "loser");
        JobStore winnerStore = new JobStore(database, winner);
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        clock.measure();
        ClusterJobStats stats = new ClusterJobStats();
        JobContext context = new JobContext(
                new JobStore(database, loser),
                clock,
                stats,
                new OutageLog(SkippedFireTest.class, "skipped fires"),
                Duration.ofSeconds(1),
                Duration.ofMinutes(10),
                HORIZON);
        CronJob job = new CronJob("job", () -> {}, context, "0 0 3 * * *", ZoneOffset.UTC);
        job.nextExecution(new SimpleTriggerContext()); // registers the job's row
        Instant fire = clock.now().truncatedTo(ChronoUnit.SECONDS);
        assertThat(winnerStore.recordFire("job", job.key(), fire, HORIZON)).isTrue();
        boolean folds =
                JobSql.of(database.dialect(), database.tables(), new InstanceSql(database.dialect(), database.tables()))
                                .recordFireOrRead(false)
                        != null;

        log.clear();
        job.runFire(fire);

        assertThat(stats.job("job").skipped()).containsEntry(SkipReason.LOST, 1L);
        assertThat(log.executed()).as("statements of the loser").hasSize(folds ? 1 : 2);
        if (folds) {
            assertThat(log.containing("SELECT " + "COALESCE(user_paused, paused) AS paused FROM"))
                    .as("the read is inside the insert's statement")
                    .allMatch(sql -> sql.startsWith("WITH"));
        }

        winnerStore.setPaused("job", true);
        log.clear();
        job.runFire(fire.plusSeconds(1));

        assertThat(stats.job("job").skipped()).containsEntry(SkipReason.PAUSED, 1L);
        // no read of its own either; then the claim of the paused fire, so that no run takes it after
        assertThat(log.executed()).hasSize((folds ? 1 : 2) + 1);
        assertThat(log.executed().get(log.executed().size() - 1))
                .contains("INSERT")
                .contains("fires");
        assertThat(kind == TestDatabases.Kind.POSTGRESQL).isEqualTo(folds);
    }

    private static ClusterInstance instance(ClusterDatabase database, String name) {
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), name, Duration.ofSeconds(30));
        instance.register();
        return instance;
    }
}
