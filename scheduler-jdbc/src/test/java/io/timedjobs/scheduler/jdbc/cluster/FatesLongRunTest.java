package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
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
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * One instance that carries its jobs alone: the fires a long run outlasts, which no other instance
 * tried, each have one fate all the same.
 */
class FatesLongRunTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    /** Poll 200 ms, lease 5 s, max run time 10 s, horizon 2 s: some passed fires are older than the horizon. */
    private static final TestInstance.Settings SETTINGS = new TestInstance.Settings(
            Duration.ofMillis(200),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            ZoneId.of("UTC"));

    /** When set, a run of either job of {@link LongRuns} waits for it to open, having counted down {@link #held}. */
    static volatile @Nullable CountDownLatch hold;

    static volatile CountDownLatch held = new CountDownLatch(2);

    private @Nullable ConfigurableApplicationContext instance;

    @AfterEach
    void close() {
        for (CountDownLatch open : java.util.Arrays.asList(hold, holdMissed)) {
            if (open != null) {
                open.countDown();
            }
        }
        hold = null;
        holdMissed = null;
        if (instance != null) {
            instance.close();
        }
    }

    /**
     * A run of a cron job and one of a fixed-rate job, each every second and held for about 3.5 s
     * on a lone instance: every nominal fire from before the long runs to after them has exactly one
     * record, the fires the runs outlasted as STILL_RUNNING.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldGiveEachFireALongRunOutlastedOneFateOnALoneInstance(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        RunLog log = new RunLog();
        instance = TestInstance.start(
                dataSource, "a", Duration.ZERO, SETTINGS, RunHistorySettings.defaults(), log, LongRuns.class);
        List<String> methods = List.of("cron", "rate");
        Instant started = Instant.now();
        await().atMost(WAIT).until(() -> methods.stream().allMatch(job -> after(log, job, started) >= 2));
        List<Instant> from = methods.stream()
                .map(job -> log.fires(job).stream()
                        .filter(started::isBefore)
                        .findFirst()
                        .orElseThrow())
                .toList();

        held = new CountDownLatch(2);
        CountDownLatch open = new CountDownLatch(1);
        hold = open;
        assertThat(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        // both runs go on for about 3.5 s: a time to wait out, not an event
        await().pollDelay(Duration.ofMillis(3500)).atMost(WAIT).until(() -> true);
        hold = null;
        open.countDown();
        Instant released = Instant.now();
        await().atMost(WAIT).until(() -> methods.stream().allMatch(job -> after(log, job, released) >= 3));
        List<String> jobs = methods.stream().map(this::job).toList();
        List<Instant> to = methods.stream()
                .map(job -> log.fires(job).get(log.fires(job).size() - 1))
                .toList();
        instance.close();
        instance = null;

        RunHistory history =
                new RunHistory(ClusterDatabase.of(dataSource, TableNames.defaults()), RunHistorySettings.defaults());
        for (int i = 0; i < jobs.size(); i++) {
            FatesTest.assertOneFatePerFire(history, jobs.get(i), from.get(i), to.get(i));
            List<RunRecord> stillRunning =
                    history.find(RunHistoryQuery.all().job(jobs.get(i)).skipReason(SkipReason.STILL_RUNNING));
            assertThat(stillRunning.stream().mapToLong(RunRecord::fires).sum())
                    .as("fires the long run of %s outlasted: %s", jobs.get(i), stillRunning)
                    .isGreaterThanOrEqualTo(2);
        }
        for (String job : methods) {
            assertThat(log.runsPerFire(job).values()).allMatch(runs -> runs == 1);
        }
    }

    /**
     * A catch-up run after a downtime, held for about 3.5 s on a lone instance: the fires of the
     * schedule it outlasted have one fate each, as have the downtime's fires and those after.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabases.Kind.class, names = "POSTGRESQL")
    void shouldGiveEachFireALongCatchUpRunOutlastedOneFate(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        RunLog log = new RunLog();
        instance = TestInstance.start(
                dataSource, "a", Duration.ZERO, SETTINGS, RunHistorySettings.defaults(), log, LongCatchUp.class);
        Instant started = Instant.now();
        await().atMost(WAIT).until(() -> after(log, "each", started) >= 2);
        String job = job("each");
        Instant from =
                log.fires("each").stream().filter(started::isBefore).findFirst().orElseThrow();
        instance.close();
        instance = null;

        // down for longer than the horizon: waiting out a time, not an event
        await().pollDelay(Duration.ofSeconds(4)).atMost(WAIT).until(() -> true);
        held = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        holdMissed = open;
        instance = TestInstance.start(
                dataSource, "a", Duration.ZERO, SETTINGS, RunHistorySettings.defaults(), log, LongCatchUp.class);
        assertThat(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        // the catch-up run goes on for about 3.5 s: a time to wait out, not an event
        await().pollDelay(Duration.ofMillis(3500)).atMost(WAIT).until(() -> true);
        holdMissed = null;
        open.countDown();
        Instant released = Instant.now();
        await().atMost(WAIT).until(() -> after(log, "each", released) >= 3);
        Instant to = log.fires("each").get(log.fires("each").size() - 1);
        instance.close();
        instance = null;

        RunHistory history =
                new RunHistory(ClusterDatabase.of(dataSource, TableNames.defaults()), RunHistorySettings.defaults());
        FatesTest.assertOneFatePerFire(history, job, from, to);
        assertThat(history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.STILL_RUNNING)))
                .as("fires of the schedule the catch-up run outlasted")
                .isNotEmpty();
    }

    private static long after(RunLog log, String job, Instant since) {
        return log.fires(job).stream().filter(since::isBefore).count();
    }

    private String job(String method) {
        return java.util.Objects.requireNonNull(instance).getBean(ClusteredJobs.class).jobNames().stream()
                .filter(name -> name.endsWith("." + method))
                .findFirst()
                .orElseThrow();
    }

    /** When set, a catch-up run of {@link LongCatchUp} waits for it to open, having counted down {@link #held}. */
    static volatile @Nullable CountDownLatch holdMissed;

    /** A cron job every second that catches up each missed fire; a catch-up run waits while {@link #holdMissed} is set. */
    static class LongCatchUp {
        private final RunLog log;
        private final String instance;

        LongCatchUp(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        @io.timedjobs.scheduler.jdbc.CatchUp(value = io.timedjobs.scheduler.jdbc.CatchUp.Policy.EACH, maxFires = 100)
        void each() throws InterruptedException {
            boolean missed = ClusteredJobs.currentFireIsMissed();
            log.record(missed ? "each-missed" : "each", instance, System.nanoTime());
            CountDownLatch wait = holdMissed;
            if (missed && wait != null) {
                holdMissed = null;
                held.countDown();
                wait.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** A cron job and a fixed-rate job, every second; a run of either waits while {@link #hold} is set. */
    static class LongRuns {
        private final RunLog log;
        private final String instance;

        LongRuns(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void cron() throws InterruptedException {
            log.record("cron", instance, System.nanoTime());
            await(hold);
        }

        @Scheduled(fixedRate = 1000)
        void rate() throws InterruptedException {
            log.record("rate", instance, System.nanoTime());
            await(hold);
        }

        private static void await(@Nullable CountDownLatch wait) throws InterruptedException {
            if (wait != null) {
                held.countDown();
                wait.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }
}
