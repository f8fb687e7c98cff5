package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.CatchUp;
import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A job with a catch-up policy that a user paused before every instance went down: the fires of
 * the downtime its policy would run are paused fires, each with one fate, and none runs.
 */
class CatchUpPausedTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    /** Poll 200 ms, lease 5 s, max run time 10 s, horizon 2 s: a downtime of a few seconds outlasts the horizon. */
    private static final TestInstance.Settings SETTINGS = new TestInstance.Settings(
            Duration.ofMillis(200),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            ZoneId.of("UTC"));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        closeAll();
    }

    private void closeAll() {
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();
    }

    private List<ConfigurableApplicationContext> startThree(DataSource dataSource, RunLog log) throws Exception {
        List<CompletableFuture<ConfigurableApplicationContext>> starting = Stream.of("a", "b", "c")
                .map(name -> CompletableFuture.<ConfigurableApplicationContext>supplyAsync(() -> TestInstance.start(
                        dataSource,
                        name,
                        Duration.ZERO,
                        SETTINGS,
                        RunHistorySettings.defaults(),
                        log,
                        PausedPolicies.class)))
                .toList();
        List<ConfigurableApplicationContext> started = new ArrayList<>();
        for (CompletableFuture<ConfigurableApplicationContext> instance : starting) {
            started.add(instance.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
        instances.addAll(started);
        return started;
    }

    /**
     * ONCE and EACH, paused, every instance down for longer than the horizon, then back and resumed
     * a few fires later: no missed fire runs, and every fire from before the pause to after the
     * resume has exactly one fate (the downtime's fires PAUSED, but for those ONCE drops as MISSED).
     */
    @Test
    void shouldRecordTheMissedFiresOfAPausedJobAsPausedOnce() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        List<ConfigurableApplicationContext> three = startThree(dataSource, log);
        Instant started = Instant.now();
        RunHistory history =
                new RunHistory(ClusterDatabase.of(dataSource, TableNames.defaults()), RunHistorySettings.defaults());
        List<String> methods = List.of("once", "each");
        await().atMost(WAIT).until(() -> methods.stream().allMatch(method -> after(log, method, started) >= 2));
        List<String> jobs = methods.stream()
                .map(method -> three.get(0).getBean(ClusteredJobs.class).jobNames().stream()
                        .filter(name -> name.endsWith("." + method))
                        .findFirst()
                        .orElseThrow())
                .toList();
        List<Instant> from = methods.stream()
                .map(method -> log.fires(method).stream()
                        .filter(started::isBefore)
                        .findFirst()
                        .orElseThrow())
                .toList();
        JobStore store = new JobStore(
                three.get(0).getBean(ClusterDatabase.class),
                three.get(0).getBean(ClusterHeartbeat.class).instance());
        jobs.forEach(job -> store.setPaused(job, true));
        await().atMost(WAIT).until(() -> jobs.stream().allMatch(job -> paused(history, job) >= 1));
        closeAll();

        // Every instance down for longer than the horizon: waiting out a time, not an event.
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
        Instant restart = Instant.now();
        List<ConfigurableApplicationContext> back = startThree(dataSource, log);
        await().atMost(WAIT)
                .until(() -> jobs.stream().allMatch(job -> pausedAfter(history, job, restart.plusSeconds(2))));
        JobStore again = new JobStore(
                back.get(0).getBean(ClusterDatabase.class),
                back.get(0).getBean(ClusterHeartbeat.class).instance());
        jobs.forEach(job -> again.setPaused(job, false));
        Instant resumed = Instant.now();
        await().atMost(WAIT).until(() -> methods.stream().allMatch(method -> after(log, method, resumed) >= 2));
        List<Instant> to = methods.stream()
                .map(method -> log.fires(method).get(log.fires(method).size() - 1))
                .toList();
        closeAll();

        for (int i = 0; i < jobs.size(); i++) {
            FatesTest.assertOneFatePerFire(history, jobs.get(i), from.get(i), to.get(i));
            assertThat(FatesTest.records(history, jobs.get(i)))
                    .as("no catch-up run while paused")
                    .noneMatch(RunRecord::catchUp);
        }
        assertThat(log.count("once-missed") + log.count("each-missed")).isZero();
        assertThat(FatesTest.records(history, jobs.get(1)))
                .as("EACH drops none of the downtime's fires")
                .noneMatch(record -> record.skipReason() == SkipReason.MISSED);
    }

    private static long after(RunLog log, String job, Instant since) {
        return log.fires(job).stream().filter(since::isBefore).count();
    }

    private static long paused(RunHistory history, String job) {
        return history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.PAUSED)).stream()
                .mapToLong(RunRecord::fires)
                .sum();
    }

    private static boolean pausedAfter(RunHistory history, String job, Instant at) {
        return history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.PAUSED)).stream()
                .anyMatch(record -> record.fireUntil().isAfter(at));
    }

    /** Two jobs every second, ONCE and EACH; a catch-up run is logged as {@code <job>-missed}. */
    static class PausedPolicies {
        private final RunLog log;
        private final String instance;

        PausedPolicies(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        private void record(String job) {
            log.record(ClusteredJobs.currentFireIsMissed() ? job + "-missed" : job, instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        @CatchUp(Policy.ONCE)
        void once() {
            record("once");
        }

        @Scheduled(cron = "* * * * * *")
        @CatchUp(value = Policy.EACH, maxFires = 100)
        void each() {
            record("each");
        }
    }
}
