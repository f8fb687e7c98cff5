package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.ChildJvm;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two JVMs of {@link AbandonedRunMain} on one embedded PostgreSQL, or one MariaDB server (skipped,
 * saying why, where none can be had); the one running the slow cron job is killed with SIGKILL
 * mid-run.
 */
class AbandonedRunProcessesTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    private final Map<String, Process> processes = new LinkedHashMap<>();

    @AfterEach
    void stopProcesses() throws InterruptedException {
        for (Process process : processes.values()) {
            process.destroy();
        }
        for (Process process : processes.values()) {
            if (!process.waitFor(TestDelays.scaled(Duration.ofSeconds(20)).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * The fire whose run was killed gets one record, ABANDONED and naming the killed instance, once
     * the survivor takes its lease over; the survivor's runs after it have their own.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabases.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void shouldRecordTheKilledRunAsAbandonedOnceTheSurvivorTakesItsLeaseOver(TestDatabases.Kind kind)
            throws IOException {
        String url = kind.newDatabaseUrl();
        DataSource dataSource = TestDatabases.pooled(url, 10_000);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcDialect dialect = database.dialect();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String instant = kind == TestDatabases.Kind.MARIADB ? "DATETIME(6)" : "TIMESTAMP WITH TIME ZONE";
        String id = kind == TestDatabases.Kind.MARIADB ? "BIGINT AUTO_INCREMENT" : "BIGSERIAL";
        jdbc.execute("CREATE TABLE test_runs (id " + id + " PRIMARY KEY, fire_at " + instant + " NOT NULL,"
                + " instance_name VARCHAR(50) NOT NULL, started_at " + instant + " NOT NULL, ended_at " + instant
                + ")");
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());

        launch("p1", url);
        launch("p2", url);
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_instances", Integer.class) == 2);

        // A run that started less than a second ago: it is surely still running.
        Map<String, Object> running = await().atMost(WAIT)
                .until(
                        () -> jdbc.queryForList(
                                "SELECT instance_name, fire_at FROM test_runs WHERE ended_at IS NULL"
                                        + " AND started_at > " + dialect.nowPlusMillis(),
                                -1000L),
                        list -> !list.isEmpty())
                .get(0);
        String victim = (String) running.get("instance_name");
        String survivor = victim.equals("p1") ? "p2" : "p1";
        processes.get(victim).destroyForcibly();
        Instant killedFire = jdbc.queryForObject(
                "SELECT fire_at FROM test_runs WHERE instance_name = ? AND ended_at IS NULL",
                (rs, row) -> dialect.readInstant(rs, 1),
                victim);

        List<RunRecord> abandoned = await().atMost(WAIT)
                .until(
                        () -> history.find(RunHistoryQuery.all().outcome(RunOutcome.ABANDONED)),
                        list -> !list.isEmpty());
        // the survivor's run after the take-over ends, and its record with it
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM test_runs WHERE instance_name = ? AND fire_at > ?"
                                        + " AND ended_at IS NOT NULL",
                                Integer.class,
                                survivor,
                                dialect.bind(killedFire))
                        > 0);

        assertThat(history.find(RunHistoryQuery.all().outcome(RunOutcome.ABANDONED)))
                .as("records of abandoned runs")
                .singleElement()
                .satisfies(run -> {
                    assertThat(run.fireAt()).isEqualTo(killedFire);
                    assertThat(run.instance()).isEqualTo(victim);
                    assertThat(run.error())
                            .contains("Instance " + victim + " began this run")
                            .contains("instance " + survivor + " took its run lease over");
                });
        assertThat(abandoned).hasSize(1);
        assertThat(history.find(RunHistoryQuery.all().outcome(RunOutcome.SUCCEEDED)))
                .as("runs that ended")
                .extracting(RunRecord::fireAt)
                .doesNotContain(killedFire);
    }

    private void launch(String name, String url) throws IOException {
        File output = new File("target", "abandoned-run-" + name + ".log");
        ProcessBuilder builder = ChildJvm.builder(
                        AbandonedRunMain.class, List.of("-Xmx128m", "-XX:TieredStopAtLevel=1"), url, name)
                .redirectOutput(output);
        processes.put(name, builder.start());
    }
}
