package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * What recording fates costs three instances on PostgreSQL, counted statement by statement: nothing
 * for fires that run, about one statement per instance for a paused fire.
 */
class FateCostTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /** The statements a skip sends: its read of the job's latest records, its insert, its extension. */
    private static List<String> skipStatements(StatementLog log) {
        return log.executed().stream()
                .filter(sql -> sql.contains("run_history")
                        && (sql.contains("fire_until = ?")
                                || sql.contains("'SKIPPED'")
                                || sql.contains("fire_at <= ?")))
                .toList();
    }

    private static long pausedFires(RunHistory history, String job) {
        return history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.PAUSED)).stream()
                .mapToLong(RunRecord::fires)
                .sum();
    }

    /**
     * Fires that run send no statement of the skips' (their record goes with the run's end, as
     * before); a paused fire costs at most one statement per instance, beyond a few for the pause's
     * first fires.
     */
    @Test
    void shouldCostNothingForRunsAndAboutOneStatementPerInstanceForAPausedFire() {
        DataSource database = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        StatementLog log = new StatementLog(database);
        new SchemaInitializer(ClusterDatabase.of(log.dataSource(), TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        RunLog runs = new RunLog();
        for (String name : List.of("a", "b", "c")) {
            instances.add(TestInstance.start(
                    log.dataSource(),
                    name,
                    Duration.ZERO,
                    TestInstance.Settings.shrunk(),
                    RunHistorySettings.defaults(),
                    runs,
                    OneJob.class));
        }
        // read apart, so that the test's own reads are not counted
        RunHistory history =
                new RunHistory(ClusterDatabase.of(database, TableNames.defaults()), RunHistorySettings.defaults());
        String job = instances.get(0).getBean(ClusteredJobs.class).jobNames().get(0);
        await().atMost(WAIT).until(() -> runs.count("tick") >= 3);

        log.clear();
        long ranBefore = runs.count("tick");
        await().atMost(WAIT).until(() -> runs.count("tick") >= ranBefore + 6);
        int running = log.executed().size();
        long ran = runs.count("tick") - ranBefore;
        assertThat(skipStatements(log))
                .as("skip statements while every fire runs")
                .isEmpty();

        JobStore store = new JobStore(
                instances.get(0).getBean(ClusterDatabase.class),
                instances.get(0).getBean(ClusterHeartbeat.class).instance());
        store.setPaused(job, true);
        await().atMost(WAIT).until(() -> pausedFires(history, job) >= 3);
        log.clear();
        long pausedBefore = pausedFires(history, job);
        await().atMost(WAIT).until(() -> pausedFires(history, job) >= pausedBefore + 10);
        List<String> skips = skipStatements(log);
        int paused = log.executed().size();
        long fires = pausedFires(history, job) - pausedBefore;
        store.setPaused(job, false);

        String figures = String.format(
                "running: %d statements for %d fires (%.2f per fire, heartbeats included); paused: %d statements"
                        + " for %d fires (%.2f per fire), of which %d for the skips (%.2f per fire)",
                running,
                ran,
                (double) running / ran,
                paused,
                fires,
                (double) paused / fires,
                skips.size(),
                (double) skips.size() / fires);
        System.out.println("FATE-COST " + figures);
        assertThat(skips.size()).as("%s: %s", figures, skips).isLessThanOrEqualTo((int) (3 * fires) + 6);
    }

    /** A job every second. */
    static class OneJob {
        private final RunLog log;
        private final String instance;

        OneJob(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void tick() {
            log.record("tick", instance, System.nanoTime());
        }
    }
}
