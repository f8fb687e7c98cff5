package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.history.TransactionCounter;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/** The run history of clustered jobs, written by several instances at the end of each run. */
class ClusteredRunHistoryTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    /** Job names: bean name, dot, method name. */
    private static final String JOBS = "clusteredRunHistoryTest.Jobs.";

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * Three instances: each fire of a cron job, a fixed-delay job and a failing job has one record,
     * naming the instance that ran it (as the jobs themselves saw it), and the failures their error.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordWhichInstanceRanEachFire(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        for (String name : List.of("a", "b", "c")) {
            instances.add(TestInstance.start(
                    dataSource, name, Duration.ZERO, settings, RunHistorySettings.defaults(), log, Jobs.class));
        }
        RunHistory history = instances.get(0).getBean(RunHistory.class);
        await().atMost(WAIT)
                .until(() ->
                        history.find(RunHistoryQuery.all().job(JOBS + "cron")).size() >= 4
                                && history.find(RunHistoryQuery.all().job(JOBS + "delay"))
                                                .size()
                                        >= 2
                                && history.find(RunHistoryQuery.all().job(JOBS + "failing"))
                                                .size()
                                        >= 2);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        for (String job : List.of("cron", "delay", "failing")) {
            // runs only: the last instance to leave may skip a fire as it stops
            List<RunRecord> records = history.find(
                    RunHistoryQuery.all().job(JOBS + job).outcome(RunOutcome.SUCCEEDED, RunOutcome.FAILED));
            Map<Instant, String> ranBy =
                    log.runs(job).stream().collect(Collectors.toMap(RunLog.Run::fire, RunLog.Run::instance));
            assertThat(records).as("one record per run of %s", job).hasSize(ranBy.size());
            assertThat(records).allSatisfy(run -> {
                assertThat(run.kind()).isEqualTo(RunKind.JOB);
                assertThat(run.instance()).isEqualTo(ranBy.get(run.fireAt()));
                assertThat(run.attempt()).isEqualTo(1);
            });
        }
        assertThat(history.find(
                        RunHistoryQuery.all().job(JOBS + "cron").outcome(RunOutcome.SUCCEEDED, RunOutcome.FAILED)))
                .allSatisfy(run -> {
                    assertThat(run.outcome()).isEqualTo(RunOutcome.SUCCEEDED);
                    assertThat(run.error()).isNull();
                    assertThat(run.duration()).isLessThan(WAIT);
                });
        assertThat(history.find(RunHistoryQuery.all().failures())).isNotEmpty().allSatisfy(run -> {
            assertThat(run.name()).isEqualTo(JOBS + "failing");
            assertThat(run.outcome()).isEqualTo(RunOutcome.FAILED);
            assertThat(run.error()).startsWith("java.lang.IllegalStateException: boom on ");
        });
        assertThat(history.find(RunHistoryQuery.all().job(JOBS + "cron").instance("a")))
                .allSatisfy(run -> assertThat(run.instance()).isEqualTo("a"));
    }

    /** A run's end and its record are one transaction, as the end alone was; off, no record. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordARunInTheTransactionOfItsEnd(TestDatabases.Kind kind) {
        TransactionCounter counter = new TransactionCounter(kind.newDatabase());
        ClusterDatabase database = ClusterDatabase.of(counter, TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        ClusterInstance instance =
                new ClusterInstance(database.jdbc(), database.dialect(), database.tables(), "a", Duration.ofSeconds(5));
        JobStore off = new JobStore(database, instance);
        JobStore on = new JobStore(database, instance, new RunHistory(database, RunHistorySettings.defaults()));
        Instant fire = Instant.parse("2026-01-01T10:00:00Z");
        // runs that held their lease, as a run does
        on.definitions().register("job", new JobDefinition("cron", "* * * * * *", "UTC", Duration.ZERO), null, null);
        assertThat(off.acquireLease("job", Duration.ofMinutes(1))).isEqualTo(JobStore.Lease.TAKEN);

        long before = counter.transactions();
        off.releaseLease("job", fire, 1_000_000, null);
        long without = counter.transactions() - before;
        assertThat(on.acquireLease("job", Duration.ofMinutes(1))).isEqualTo(JobStore.Lease.TAKEN);
        before = counter.transactions();
        on.releaseLease("job", fire, 1_000_000, new IllegalStateException("boom"));
        on.delayed().completeDelayedFire("job", "key", Duration.ofSeconds(1), fire, 1_000_000, null);
        long with = counter.transactions() - before;

        assertThat(without).isEqualTo(1);
        assertThat(with).isEqualTo(2 * without);
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        assertThat(history.find(RunHistoryQuery.all().job("job")))
                .extracting(RunRecord::outcome)
                .containsExactlyInAnyOrder(RunOutcome.FAILED, RunOutcome.SUCCEEDED);
    }

    /** A cron job every second, a fixed-delay job, and a job that fails. */
    static class Jobs {
        private final RunLog log;
        private final String instance;

        Jobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            log.record("cron", instance, System.nanoTime());
        }

        @Scheduled(fixedDelay = 300)
        void delay() {
            log.record("delay", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void failing() {
            log.record("failing", instance, System.nanoTime());
            throw new IllegalStateException("boom on " + instance);
        }
    }
}
