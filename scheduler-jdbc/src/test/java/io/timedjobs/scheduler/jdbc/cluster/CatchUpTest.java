package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.CatchUp;
import io.timedjobs.scheduler.jdbc.CatchUp.Policy;
import io.timedjobs.scheduler.jdbc.CatchUpPolicy;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Catch-up after a downtime of every instance longer than the fire horizon: three instances on one
 * database restart together, and each policy runs what it says, each fire at most once.
 */
class CatchUpTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(60));

    /** Longer than the horizon (2 s) and than the fire records kept (twice the horizon). */
    private static final Duration DOWNTIME = Duration.ofSeconds(7);

    /** The jobs of {@link CatchUpJobs}. */
    private static final List<String> JOBS = List.of("each", "window", "once", "skip");

    /** Poll 200 ms, lease 5 s, max run time 10 s, horizon 2 s. */
    private static final TestInstance.Settings SETTINGS = new TestInstance.Settings(
            Duration.ofMillis(200),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2),
            ZoneId.of("UTC"));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCatchUpByEachPolicyOnceAcrossThreeInstancesRestartingTogether(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        RunLog log = new RunLog();
        instances.add(TestInstance.start(dataSource, "a", Duration.ZERO, SETTINGS, log, CatchUpJobs.class));
        await().atMost(WAIT).until(() -> JOBS.stream().allMatch(job -> log.count(job) >= 2));
        instances.remove(0).close();
        Map<String, Instant> watermarks = watermarks(dataSource);
        Map<String, Instant> lastRun = new HashMap<>();
        JOBS.forEach(job -> lastRun.put(job, log.fires(job).get(log.fires(job).size() - 1)));
        assertThat(watermarks.get("skip"))
                .as("a job that skips keeps no watermark")
                .isNull();
        for (String job : List.of("each", "window", "once")) {
            assertThat(watermarks.get(job)).as("watermark of %s", job).isEqualTo(lastRun.get(job));
        }

        // Every instance down for longer than the horizon: waiting out a time, not an event.
        await().pollDelay(DOWNTIME).atMost(DOWNTIME.plusSeconds(5)).until(() -> true);
        Instant restart = Instant.now();
        List<CompletableFuture<ConfigurableApplicationContext>> starting = Stream.of("a", "b", "c")
                .map(name -> CompletableFuture.<ConfigurableApplicationContext>supplyAsync(
                        () -> TestInstance.start(dataSource, name, Duration.ZERO, SETTINGS, log, CatchUpJobs.class)))
                .toList();
        for (CompletableFuture<ConfigurableApplicationContext> instance : starting) {
            instances.add(instance.get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        }
        await().atMost(WAIT)
                .until(() -> JOBS.stream()
                        .allMatch(job -> log.fires(job).stream()
                                        .filter(restart::isBefore)
                                        .count()
                                >= 3));
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        for (String job : JOBS) {
            Map<Instant, Long> perFire = new HashMap<>(log.runsPerFire(job));
            log.runsPerFire(job + "-missed").forEach((fire, runs) -> perFire.merge(fire, runs, Long::sum));
            assertThat(perFire.values())
                    .as("runs per fire of %s: %s", job, perFire)
                    .allMatch(runs -> runs == 1);
        }
        // SKIP, today's behaviour: nothing of the downtime runs.
        assertThat(log.count("skip-missed")).isZero();
        assertThat(between(log.fires("skip"), lastRun.get("skip"), restart)).isEmpty();
        // EACH, at most 3: the three latest missed fires, one second apart, oldest first, then the schedule.
        List<Instant> each = log.fires("each-missed");
        assertThat(each).as("missed fires run by each").hasSize(3);
        assertThat(Duration.between(each.get(0), each.get(2))).isEqualTo(Duration.ofSeconds(2));
        assertThat(each.get(0)).isAfter(lastRun.get("each").plusSeconds(DOWNTIME.toSeconds() - 4));
        assertThat(between(log.fires("each"), lastRun.get("each"), restart))
                .as("no fire of the downtime runs but the three caught up")
                .isEmpty();
        assertThat(log.fires("each").stream().filter(fire -> fire.isAfter(lastRun.get("each"))))
                .allMatch(fire -> fire.isAfter(each.get(2)));
        // EACH within 3 s: only the fires of the last 3 s before the plan, not the whole downtime.
        List<Instant> window = log.fires("window-missed");
        assertThat(window).isNotEmpty().hasSizeLessThanOrEqualTo(4);
        assertThat(window).allMatch(fire -> fire.isAfter(restart.minusSeconds(4)));
        // ONCE: exactly one run, with the latest missed fire.
        List<Instant> once = log.fires("once-missed");
        assertThat(once).hasSize(1);
        assertThat(once.get(0)).as("the latest missed fire").isAfter(restart.minusSeconds(3));
        assertThat(log.fires("once").stream().filter(fire -> fire.isAfter(lastRun.get("once"))))
                .isNotEmpty()
                .allMatch(fire -> fire.isAfter(once.get(0)));
    }

    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefuseCatchUpOnAFixedDelayJobAtStartUp(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        assertThatThrownBy(() -> instances.add(TestInstance.start(
                        dataSource, "a", Duration.ZERO, SETTINGS, new RunLog(), FixedDelayCatchUp.class)))
                .hasStackTraceContaining("FixedDelayCatchUp.delayed")
                .hasStackTraceContaining("only cron and fixed-rate jobs have missed fires");
    }

    @Test
    void shouldRefuseAnUnknownPolicyAndAWindowThatIsNotPositive() {
        assertThatThrownBy(() -> CatchUpPolicy.resolve(
                        "reports.daily", null, null, 24, new CatchUpPolicy.Settings("sometimes", null, null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timed-jobs.cluster.jobs[reports.daily].catch-up.policy is 'sometimes'")
                .hasMessageContaining("[skip, once, each]");
        assertThatThrownBy(() -> CatchUpPolicy.resolve("reports.daily", Policy.EACH, "-PT1H", 24, null))
                .hasMessageContaining("Catch-up of clustered job reports.daily")
                .hasMessageContaining("window must be positive");
        assertThatThrownBy(() -> CatchUpPolicy.resolve("reports.daily", Policy.EACH, "six hours", 24, null))
                .hasMessageContaining("not an ISO-8601 duration");
        assertThatThrownBy(() -> CatchUpPolicy.resolve("reports.daily", Policy.EACH, "PT6H", 0, null))
                .hasMessageContaining("at least 1");
        assertThat(CatchUpPolicy.resolve(
                        "reports.daily", Policy.EACH, "PT6H", 24, new CatchUpPolicy.Settings("once", null, 5)))
                .as("the keys win part by part")
                .isEqualTo(new CatchUpPolicy(Policy.ONCE, Duration.ofHours(6), 5));
    }

    private static List<Instant> between(List<Instant> fires, Instant after, Instant before) {
        return fires.stream()
                .filter(fire -> fire.isAfter(after) && fire.isBefore(before))
                .toList();
    }

    private static Map<String, Instant> watermarks(DataSource dataSource) {
        Map<String, Instant> watermarks = new HashMap<>();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        new JdbcTemplate(dataSource).query("SELECT job_name, caught_up_to FROM timed_jobs_jobs", rs -> {
            String job = rs.getString("job_name");
            watermarks.put(job.substring(job.lastIndexOf('.') + 1), dialect.readInstant(rs, "caught_up_to"));
        });
        return watermarks;
    }

    /** Four jobs every second, one per policy; a run of a missed fire is logged as {@code <job>-missed}. */
    static class CatchUpJobs {
        private final RunLog log;
        private final String instance;

        CatchUpJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        private void record(String job) {
            log.record(ClusteredJobs.currentFireIsMissed() ? job + "-missed" : job, instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        @CatchUp(value = Policy.EACH, maxFires = 3)
        void each() {
            record("each");
        }

        @Scheduled(cron = "* * * * * *")
        @CatchUp(value = Policy.EACH, window = "PT3S", maxFires = 100)
        void window() {
            record("window");
        }

        @Scheduled(fixedRate = 1000)
        @CatchUp(Policy.ONCE)
        void once() {
            record("once");
        }

        @Scheduled(cron = "* * * * * *")
        void skip() {
            record("skip");
        }
    }

    /** A fixed-delay job that declares a catch-up, which it cannot have. */
    static class FixedDelayCatchUp {
        @Scheduled(fixedDelay = 1000)
        @CatchUp(Policy.EACH)
        void delayed() {}
    }
}
