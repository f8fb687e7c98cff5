package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.CatchUp;
import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryPage;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Every nominal fire of a clustered job ends as exactly one fate across three instances on
 * PostgreSQL: a run, or a skip with its reason, each produced for real.
 */
class FatesTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    /** Poll 200 ms, lease 5 s, max run time 10 s, horizon 2 s: a downtime of a few seconds outlasts the horizon. */
    private static final TestInstance.Settings SETTINGS = new TestInstance.Settings(
            Duration.ofMillis(200),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            ZoneId.of("UTC"));

    /** When set, a run of {@link Ticks} waits for it to open, having counted down {@link #held}. */
    static volatile @Nullable CountDownLatch hold;

    static volatile CountDownLatch held = new CountDownLatch(1);

    /** As {@link #hold}, for the other job of {@link Ticks}, {@code slow}. */
    static volatile @Nullable CountDownLatch holdSlow;

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        for (CountDownLatch open : java.util.Arrays.asList(hold, holdSlow)) {
            if (open != null) {
                open.countDown();
            }
        }
        hold = null;
        holdSlow = null;
        instances.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext start(DataSource dataSource, String name, RunLog log, Class<?>... jobs) {
        ConfigurableApplicationContext context =
                TestInstance.start(dataSource, name, Duration.ZERO, SETTINGS, RunHistorySettings.defaults(), log, jobs);
        instances.add(context);
        return context;
    }

    private List<ConfigurableApplicationContext> startThree(DataSource dataSource, RunLog log, Class<?>... jobs)
            throws Exception {
        List<CompletableFuture<ConfigurableApplicationContext>> starting = Stream.of("a", "b", "c")
                .map(name -> CompletableFuture.<ConfigurableApplicationContext>supplyAsync(() -> TestInstance.start(
                        dataSource, name, Duration.ZERO, SETTINGS, RunHistorySettings.defaults(), log, jobs)))
                .toList();
        List<ConfigurableApplicationContext> started = new ArrayList<>();
        for (CompletableFuture<ConfigurableApplicationContext> instance : starting) {
            started.add(instance.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
        instances.addAll(started);
        return started;
    }

    private void closeAll() {
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();
    }

    private static RunHistory history(DataSource dataSource) {
        return new RunHistory(
                ClusterDatabase.of(dataSource, io.timedjobs.scheduler.jdbc.database.TableNames.defaults()),
                RunHistorySettings.defaults());
    }

    private static String job(ConfigurableApplicationContext instance, String method) {
        return instance.getBean(ClusteredJobs.class).jobNames().stream()
                .filter(name -> name.endsWith("." + method))
                .findFirst()
                .orElseThrow();
    }

    /** Every record of a job, read page by page. */
    static List<RunRecord> records(RunHistory history, String job) {
        List<RunRecord> all = new ArrayList<>();
        RunHistoryPage page = history.page(RunHistoryQuery.all().job(job).limit(50));
        all.addAll(page.records());
        while (page.nextCursor() != null) {
            page = history.page(RunHistoryQuery.all().job(job).limit(50).cursor(page.nextCursor()));
            all.addAll(page.records());
        }
        return all;
    }

    /** Each fire a second apart from {@code from} to {@code to}, both included, has exactly one record covering it. */
    static void assertOneFatePerFire(RunHistory history, String job, Instant from, Instant to) {
        List<RunRecord> records = records(history, job);
        assertThat(from).isBefore(to);
        for (Instant fire = from; !fire.isAfter(to); fire = fire.plusSeconds(1)) {
            Instant at = fire;
            List<RunRecord> covering =
                    records.stream().filter(record -> record.covers(at)).toList();
            assertThat(covering)
                    .as("fates of %s at %s among %s", job, at, records)
                    .hasSize(1);
        }
    }

    private static long skipped(RunHistory history, String job, SkipReason reason) {
        return history.find(RunHistoryQuery.all().job(job).skipReason(reason)).stream()
                .mapToLong(RunRecord::fires)
                .sum();
    }

    private static Instant lastFire(RunLog log, String job) {
        List<Instant> fires = log.fires(job);
        return fires.get(fires.size() - 1);
    }

    /**
     * A pause of a job every second on three instances is one PAUSED record covering its fires,
     * and every fire before, during and after it has one fate.
     */
    @Test
    void shouldRecordAPauseAsOneRecordAndEveryFireOnce() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        List<ConfigurableApplicationContext> three = startThree(dataSource, log, Ticks.class);
        Instant started = Instant.now();
        RunHistory history = history(dataSource);
        String job = job(three.get(0), "tick");
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(started::isBefore).count() >= 3);
        Instant from =
                log.fires("tick").stream().filter(started::isBefore).findFirst().orElseThrow();

        JobStore store = new JobStore(
                three.get(0).getBean(ClusterDatabase.class),
                three.get(0).getBean(ClusterHeartbeat.class).instance());
        store.setPaused(job, true);
        await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.PAUSED) >= 4);
        store.setPaused(job, false);
        Instant resumed = Instant.now();
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(resumed::isBefore).count() >= 3);
        Instant to = lastFire(log, "tick");
        closeAll();

        assertOneFatePerFire(history, job, from, to);
        assertThat(history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.PAUSED)))
                .as("one record for the pause")
                .singleElement()
                .satisfies(pause -> assertThat(pause.fires()).isGreaterThanOrEqualTo(4));
        assertThat(log.runsPerFire("tick").values()).allMatch(runs -> runs == 1);
    }

    /**
     * While an instance of schema version 5 is alive (it reads every record as a run), no skip is
     * written; once it is gone, skips are written again.
     */
    @Test
    void shouldWriteNoSkipWhileAVersion5InstanceIsAlive() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(dataSource);
        jdbc.update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at, schema_version)"
                + " VALUES ('old', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 5)");
        java.util.concurrent.ScheduledExecutorService beat =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        java.util.concurrent.ScheduledFuture<?> beating = beat.scheduleWithFixedDelay(
                () -> jdbc.update(
                        "UPDATE timed_jobs_instances SET heartbeat_at = CURRENT_TIMESTAMP WHERE instance_name = 'old'"),
                0,
                200,
                TimeUnit.MILLISECONDS);
        try {
            RunLog log = new RunLog();
            ConfigurableApplicationContext a = start(dataSource, "a", log, Ticks.class);
            RunHistory history = history(dataSource);
            String job = job(a, "tick");
            await().atMost(WAIT).until(() -> log.fires("tick").size() >= 2);
            JobStore store = new JobStore(
                    a.getBean(ClusterDatabase.class),
                    a.getBean(ClusterHeartbeat.class).instance());
            store.setPaused(job, true);
            Instant paused = Instant.now();
            // several paused fires go by with the version 5 instance alive
            await().pollDelay(Duration.ofSeconds(4)).atMost(WAIT).until(() -> true);
            assertThat(log.fires("tick").stream().filter(paused.plusSeconds(1)::isBefore))
                    .as("paused")
                    .isEmpty();
            assertThat(history.find(RunHistoryQuery.all().job(job).outcome(RunOutcome.SKIPPED)))
                    .as("no skip while a version 5 instance is alive")
                    .isEmpty();

            beating.cancel(false);
            jdbc.update("DELETE FROM timed_jobs_instances WHERE instance_name = 'old'");
            await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.PAUSED) >= 1);
        } finally {
            beat.shutdownNow();
        }
    }

    /**
     * An instance whose own link to the database is cut while the others run every fire writes no
     * DATABASE_DOWN over a fire they ran, even one whose run has not ended (no history record yet).
     */
    @Test
    void shouldWriteNoDatabaseDownOverFiresTheOthersRan() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        io.timedjobs.scheduler.jdbc.durable.SwitchableDataSource cut =
                new io.timedjobs.scheduler.jdbc.durable.SwitchableDataSource(dataSource);
        RunLog log = new RunLog();
        ConfigurableApplicationContext a = start(dataSource, "a", log, Ticks.class);
        start(cut, "b", log, Ticks.class);
        start(dataSource, "c", log, Ticks.class);
        RunHistory history = history(dataSource);
        String job = job(a, "tick");
        Instant started = Instant.now();
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(started::isBefore).count() >= 2);
        cut.down();
        held = new CountDownLatch(1);
        hold = new CountDownLatch(1);
        assertThat(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        // the run goes on, the fires after it are STILL_RUNNING, written by a and c
        await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.STILL_RUNNING) >= 3);
        cut.up();
        // b's next claim goes through (the lease is busy) and it writes what it skipped meanwhile
        await().pollDelay(Duration.ofSeconds(3)).atMost(WAIT).until(() -> true);
        CountDownLatch open = hold;
        hold = null;
        open.countDown();
        Instant released = Instant.now();
        await().atMost(WAIT)
                .until(() -> log.fires("tick").stream()
                                .filter(released.plusSeconds(1)::isBefore)
                                .count()
                        >= 2);
        closeAll();

        List<Instant> ran = log.fires("tick");
        assertThat(history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.DATABASE_DOWN)))
                .as("DATABASE_DOWN records over fires that ran %s", ran)
                .allSatisfy(down -> assertThat(ran).noneMatch(down::covers));
        assertThat(log.runsPerFire("tick").values()).allMatch(runs -> runs == 1);
    }

    /**
     * A restart after a downtime with a definition that took over meanwhile records no MISSED
     * fire before it took over: those were another schedule's fires.
     */
    @Test
    void shouldRecordNoMissedFireAcrossADefinitionChange() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        ConfigurableApplicationContext a = start(dataSource, "a", log, Ticks.class);
        RunHistory history = history(dataSource);
        String job = job(a, "tick");
        await().atMost(WAIT).until(() -> log.fires("tick").size() >= 2);
        closeAll();
        // down for a few fires; then a definition takes over, as a deploy with a new schedule does
        await().pollDelay(Duration.ofSeconds(4)).atMost(WAIT).until(() -> true);
        new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                .update("UPDATE timed_jobs_jobs SET defined_at = CURRENT_TIMESTAMP WHERE job_name = ?", job);
        Instant changed = Instant.now().minusMillis(500);
        Instant restart = Instant.now();
        start(dataSource, "a", log, Ticks.class);
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(restart::isBefore).count() >= 2);
        closeAll();

        assertThat(history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.MISSED)))
                .as("MISSED before the definition took over at %s", changed)
                .allSatisfy(missed -> assertThat(missed.fireAt()).isAfter(changed));
    }

    /**
     * A run that outlasts the fires after it: each of them is recorded once as STILL_RUNNING, by
     * the instance that recorded it, as one growing record.
     */
    @Test
    void shouldRecordTheFiresOfARunStillGoingAsStillRunning() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        List<ConfigurableApplicationContext> three = startThree(dataSource, log, Ticks.class);
        Instant started = Instant.now();
        RunHistory history = history(dataSource);
        String job = job(three.get(0), "tick");
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(started::isBefore).count() >= 2);
        Instant from =
                log.fires("tick").stream().filter(started::isBefore).findFirst().orElseThrow();

        held = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        hold = open;
        assertThat(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.STILL_RUNNING) >= 3);
        hold = null;
        open.countDown();
        Instant released = Instant.now();
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(released::isBefore).count() >= 3);
        Instant to = lastFire(log, "tick");
        closeAll();

        assertOneFatePerFire(history, job, from, to);
        assertThat(history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.STILL_RUNNING)))
                .as("one record for the fires the long run held")
                .singleElement()
                .satisfies(overlap -> assertThat(overlap.fires()).isGreaterThanOrEqualTo(3));
    }

    /**
     * Every instance down for longer than the horizon, then back: the fires of the downtime are one
     * MISSED record with no catch-up policy; with ONCE, the latest runs as a catch-up run and the
     * others are MISSED; with EACH, each runs as a catch-up run. Every fire has one fate.
     */
    @Test
    void shouldRecordTheFiresMissedDuringADowntimeByEachPolicy() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        List<ConfigurableApplicationContext> three = startThree(dataSource, log, Policies.class);
        Instant started = Instant.now();
        RunHistory history = history(dataSource);
        List<String> methods = List.of("skip", "once", "each");
        await().atMost(WAIT)
                .until(() -> methods.stream()
                        .allMatch(method -> log.fires(method).stream()
                                        .filter(started::isBefore)
                                        .count()
                                >= 2));
        List<String> jobs =
                methods.stream().map(method -> job(three.get(0), method)).toList();
        List<Instant> from = methods.stream()
                .map(method -> log.fires(method).stream()
                        .filter(started::isBefore)
                        .findFirst()
                        .orElseThrow())
                .toList();
        closeAll();

        // Every instance down for longer than the horizon: waiting out a time, not an event.
        await().pollDelay(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).until(() -> true);
        Instant restart = Instant.now();
        startThree(dataSource, log, Policies.class);
        await().atMost(WAIT)
                .until(() -> methods.stream()
                        .allMatch(method -> log.fires(method).stream()
                                        .filter(restart::isBefore)
                                        .count()
                                >= 3));
        // The missed fires still within the horizon at the restart are written once past it.
        await().atMost(WAIT).untilAsserted(() -> {
            for (int i = 0; i < jobs.size(); i++) {
                assertOneFatePerFire(history, jobs.get(i), from.get(i), lastFire(log, methods.get(i)));
            }
        });
        List<Instant> to = methods.stream().map(method -> lastFire(log, method)).toList();
        closeAll();

        for (int i = 0; i < jobs.size(); i++) {
            assertOneFatePerFire(history, jobs.get(i), from.get(i), to.get(i));
        }
        List<RunRecord> skip = records(history, jobs.get(0));
        assertThat(skip.stream().filter(record -> record.skipReason() == SkipReason.MISSED))
                .as("the downtime, dropped")
                .singleElement()
                .satisfies(missed -> assertThat(missed.fires()).isGreaterThanOrEqualTo(3));
        assertThat(skip).noneMatch(RunRecord::catchUp);
        List<RunRecord> once = records(history, jobs.get(1));
        assertThat(once.stream().filter(RunRecord::catchUp))
                .as("the latest missed fire, run late")
                .singleElement()
                .satisfies(run -> assertThat(run.skipped()).isFalse());
        assertThat(once.stream().filter(record -> record.skipReason() == SkipReason.MISSED))
                .singleElement()
                .satisfies(missed -> assertThat(missed.fires()).isGreaterThanOrEqualTo(2));
        List<RunRecord> each = records(history, jobs.get(2));
        assertThat(each.stream().filter(RunRecord::catchUp).count())
                .as("each missed fire, run late")
                .isGreaterThanOrEqualTo(3);
        assertThat(each).noneMatch(record -> record.skipReason() == SkipReason.MISSED);
        assertThat(log.runsPerFire("each").keySet())
                .doesNotContainAnyElementsOf(log.runsPerFire("each-missed").keySet());
    }

    /**
     * The last of three instances stops while a run of another job goes on: the fire due meanwhile
     * is recorded as STOPPING; while others are alive, a stopping instance records none (they run
     * its fires).
     */
    @Test
    void shouldRecordAFireTheLastInstanceRefusesAsItStops() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        List<ConfigurableApplicationContext> three = startThree(dataSource, log, Ticks.class);
        Instant started = Instant.now();
        RunHistory history = history(dataSource);
        String job = job(three.get(0), "tick");
        await().atMost(WAIT)
                .until(() ->
                        log.fires("tick").stream().filter(started::isBefore).count() >= 2);
        Instant from =
                log.fires("tick").stream().filter(started::isBefore).findFirst().orElseThrow();
        three.get(0).close();
        three.get(1).close();
        instances.remove(three.get(0));
        instances.remove(three.get(1));
        assertThat(skipped(history, job, SkipReason.STOPPING))
                .as("c ran the fires a and b left")
                .isZero();

        held = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        holdSlow = open;
        assertThat(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(three.get(2)::close);
        await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.STOPPING) >= 1);
        holdSlow = null;
        open.countDown();
        stopping.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        instances.clear();

        RunRecord stop = history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.STOPPING))
                .get(0);
        assertThat(stop.instance()).isEqualTo("c");
        assertOneFatePerFire(history, job, from, stop.fireUntil());
    }

    /**
     * Every instance stops at once: the other one still beats through its own stop but is marked
     * leaving, so the fires this one refuses while a run ends are recorded as STOPPING, each once.
     */
    @Test
    void shouldRecordTheFiresRefusedWhileEveryInstanceStops() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(dataSource);
        RunLog log = new RunLog();
        ConfigurableApplicationContext a = start(dataSource, "a", log, Ticks.class);
        Instant started = Instant.now();
        RunHistory history = history(dataSource);
        String job = job(a, "tick");
        // another instance in its own graceful stop: alive, beating, leaving
        jdbc.update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at, schema_version,"
                + " leaving) VALUES ('b', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 6, TRUE)");
        java.util.concurrent.ScheduledExecutorService beat =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        beat.scheduleWithFixedDelay(
                () -> jdbc.update(
                        "UPDATE timed_jobs_instances SET heartbeat_at = CURRENT_TIMESTAMP WHERE instance_name = 'b'"),
                0,
                200,
                TimeUnit.MILLISECONDS);
        try {
            await().atMost(WAIT)
                    .until(() ->
                            log.fires("tick").stream().filter(started::isBefore).count() >= 2);
            Instant from = log.fires("tick").stream()
                    .filter(started::isBefore)
                    .findFirst()
                    .orElseThrow();
            held = new CountDownLatch(1);
            CountDownLatch open = new CountDownLatch(1);
            holdSlow = open;
            assertThat(held.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(a::close);
            await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.STOPPING) >= 2);
            assertThat(jdbc.queryForObject(
                            "SELECT leaving FROM timed_jobs_instances WHERE instance_name = 'a'", Boolean.class))
                    .as("marked leaving through its stop")
                    .isTrue();
            holdSlow = null;
            open.countDown();
            stopping.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            instances.clear();

            RunRecord stop = history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.STOPPING))
                    .get(0);
            assertThat(stop.instance()).isEqualTo("a");
            assertOneFatePerFire(history, job, from, stop.fireUntil());
        } finally {
            beat.shutdownNow();
        }
    }

    /**
     * A deploy with another schedule (hourly): the instances of the old one (every second) stand by,
     * and every fire they refuse is recorded once as SUPERSEDED, in one growing record; once the new
     * definition's last instance stops, they take the job back, and the fires until then are
     * SUPERSEDED too: every second from the first run to a run after the take-back has one fate.
     */
    @Test
    void shouldRecordEveryFireOfAStandbyDefinitionAsSuperseded() throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        ConfigurableApplicationContext a = start(dataSource, "a", log, EverySecond.class);
        start(dataSource, "b", log, EverySecond.class);
        await().atMost(WAIT).until(() -> log.count("tick") >= 2);
        Instant from = log.fires("tick").get(0);
        ConfigurableApplicationContext c = start(dataSource, "c", log, Hourly.class);
        Instant switched = Instant.now();
        RunHistory history = history(dataSource);
        String job = job(a, "tick");
        assertThat(job(c, "tick")).isEqualTo(job);
        await().atMost(WAIT).until(() -> skipped(history, job, SkipReason.SUPERSEDED) >= 3);
        Instant lastBefore = lastFire(log, "tick");
        assertThat(records(history, job).stream().filter(record -> record.skipReason() == SkipReason.SUPERSEDED))
                .as("the fires both old instances refused, once, in one record")
                .singleElement()
                .satisfies(skip -> {
                    assertThat(skip.instance()).isIn("a", "b");
                    assertThat(skip.fireAt()).isAfter(switched.minusSeconds(1)).isAfter(lastBefore);
                });

        instances.remove(c);
        c.close();
        Instant closed = Instant.now();
        await().atMost(WAIT)
                .until(() -> log.fires("tick").stream().filter(closed::isBefore).count() >= 2);
        Instant to = lastFire(log, "tick");
        closeAll();

        assertThat(log.runsPerFire("tick").values()).allMatch(runs -> runs == 1);
        assertOneFatePerFire(history, job, from, to);
        assertThat(records(history, job))
                .filteredOn(record -> record.skipReason() == SkipReason.SUPERSEDED)
                .allMatch(record ->
                        record.instance().equals("a") || record.instance().equals("b"));
    }

    /** Two jobs every second; a run of one waits while {@link #hold} is set, of the other while {@link #holdSlow} is. */
    static class Ticks {
        private final RunLog log;
        private final String instance;

        Ticks(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void tick() throws InterruptedException {
            log.record("tick", instance, System.nanoTime());
            await(hold);
        }

        @Scheduled(cron = "* * * * * *")
        void slow() throws InterruptedException {
            await(holdSlow);
        }

        private static void await(@Nullable CountDownLatch wait) throws InterruptedException {
            if (wait != null) {
                held.countDown();
                wait.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Three jobs every second: no catch-up policy, ONCE and EACH; a catch-up run is logged as {@code <job>-missed}. */
    static class Policies {
        private final RunLog log;
        private final String instance;

        Policies(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        private void record(String job) {
            log.record(ClusteredJobs.currentFireIsMissed() ? job + "-missed" : job, instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void skip() {
            record("skip");
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

    /** The job {@code ticker.tick}, every second. */
    @Component("ticker")
    static class EverySecond {
        private final RunLog log;
        private final String instance;

        EverySecond(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void tick() {
            log.record("tick", instance, System.nanoTime());
        }
    }

    /** The same job, {@code ticker.tick}, redefined: every hour. */
    @Component("ticker")
    static class Hourly {
        private final RunLog log;
        private final String instance;

        Hourly(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "0 0 * * * *")
        void tick() {
            log.record("tick", instance, System.nanoTime());
        }
    }
}
