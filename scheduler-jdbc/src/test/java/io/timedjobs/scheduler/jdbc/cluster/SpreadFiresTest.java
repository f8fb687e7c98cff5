package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Fires spread over the live instances on PostgreSQL: each fire is tried first by the instance its
 * order ranks first, the others wait a backup step per rank and try only a fire they did not hear
 * recorded; and {@link FirePlacement#STICKY} keeps a job where it ran last.
 */
@Tag("long")
class SpreadFiresTest {

    private static final Duration WAIT = TestDelays.LONG;
    private static final List<String> JOBS =
            IntStream.range(0, 20).mapToObj(i -> String.format("j%02d", i)).toList();

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void close() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * 20 jobs every second on four instances started one after the other: each instance runs 15% to
     * 35% of 300 fires, each fire once, at fewer than 2.5 statements per fire across the cluster
     * (record attempts and releases), and a job's fires do not stay on one instance.
     */
    @Test
    void shouldSpreadTwentyJobsOverFourInstancesAtAboutTwoStatementsPerFire() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        List<String> names = List.of("a", "b", "c", "d");
        for (String name : names) {
            // each after the ones before ran a second of fires: a job that stayed where it first
            // ran would stay on the first instance
            long seen = totalRuns(log);
            await().atMost(WAIT).until(() -> instances.isEmpty() || totalRuns(log) >= seen + 20);
            instances.add(start(dataSource, name, log));
        }
        awaitViews(names);
        long runsBefore = totalRuns(log);
        long attemptsBefore = attempts();
        Instant from = lastFire(log);
        await().atMost(WAIT.multipliedBy(2)).until(() -> totalRuns(log) >= runsBefore + 300);
        long attempts = attempts() - attemptsBefore;
        long runs = totalRuns(log) - runsBefore;
        Instant to = lastFire(log).minusSeconds(1); // the last second may be running still
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        Map<String, Long> shares = new TreeMap<>();
        long fires = 0;
        long moves = 0;
        for (String job : JOBS) {
            List<RunLog.Run> window = log.runs(job).stream()
                    .filter(run -> run.fire() != null
                            && run.fire().isAfter(from)
                            && !run.fire().isAfter(to))
                    .sorted(java.util.Comparator.comparing(RunLog.Run::fire))
                    .toList();
            window.forEach(run -> shares.merge(run.instance(), 1L, Long::sum));
            fires += window.size();
            moves += moves(window);
            OncePerFireTest.assertOncePerFireWithoutGaps(log, job);
        }
        double statementsPerFire = (double) (attempts + runs) / runs;
        System.out.printf(
                "Spread of %d fires over four instances: %s; %.2f statements per fire; %d moves%n",
                fires, shares, statementsPerFire, moves);
        assertThat(shares).containsOnlyKeys(names);
        long total = fires;
        assertThat(shares.values())
                .allSatisfy(count -> assertThat((double) count / total).isBetween(0.15, 0.35));
        assertThat(statementsPerFire).isLessThan(2.5);
        assertThat((double) moves / (fires - JOBS.size()))
                .as("fires run on another instance than the job's fire before (about 3 in 4 spread evenly)")
                .isGreaterThan(0.5);
    }

    /**
     * An instance that stops and one that joins, and an instance row that beats but runs nothing (a
     * view that lists one that is not there): every fire runs once, none lost, and the newcomer takes
     * its share of the fires.
     */
    @Test
    void shouldRunEveryFireOnceWhileInstancesLeaveAndJoin() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        for (String name : List.of("a", "b", "c")) {
            instances.add(start(dataSource, name, log));
        }
        awaitViews(List.of("a", "b", "c"));
        // a row that looks alive for a lease: the instances rank it among them, and it never tries
        new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                .update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at, schema_version)"
                        + " VALUES ('ghost', clock_timestamp(), clock_timestamp(), "
                        + io.timedjobs.scheduler.jdbc.database.TableNames.SCHEMA_VERSION + ")");
        long seen = totalRuns(log);
        await().atMost(WAIT).until(() -> totalRuns(log) >= seen + 40);

        ConfigurableApplicationContext leaving = instances.remove(0);
        leaving.close();
        Instant left = Instant.now();
        instances.add(start(dataSource, "d", log));
        awaitViews(List.of("b", "c", "d"));
        Instant joined = Instant.now();
        await().atMost(WAIT).until(() -> runsSince(log, joined, "d") >= 10);
        long afterJoin = totalRuns(log);
        await().atMost(WAIT).until(() -> totalRuns(log) >= afterJoin + 40);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        for (String job : JOBS) {
            OncePerFireTest.assertOncePerFireWithoutGaps(log, job);
        }
        assertThat(runsSince(log, left.plusSeconds(1), "a"))
                .as("runs of the instance that left")
                .isZero();
        assertThat(runsSince(log, joined, "b") + runsSince(log, joined, "c")).isPositive();
    }

    /**
     * With {@link FirePlacement#STICKY}, each job keeps running where it ran last: over 20 fires of
     * each of two jobs on three instances, at most a few change instance (about two in three would
     * with the fires spread).
     */
    @Test
    void shouldKeepEachJobWhereItRanLastWhenSticky() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        for (String name : List.of("a", "b", "c")) {
            instances.add(TestInstance.start(
                    dataSource,
                    name,
                    Duration.ZERO,
                    settings,
                    log,
                    OncePerFireTest.EverySecondJobs.class,
                    Sticky.class));
        }
        awaitViews(List.of("a", "b", "c"));
        int before = log.runs("cron").size();
        int beforeRate = log.runs("rate").size();
        await().atMost(WAIT.multipliedBy(2))
                .until(() -> log.runs("cron").size() >= before + 20
                        && log.runs("rate").size() >= beforeRate + 20);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        int moves = moves(log.runs("cron").subList(before, before + 20))
                + moves(log.runs("rate").subList(beforeRate, beforeRate + 20));
        assertThat(moves).as("fires that changed instance, of 40").isLessThanOrEqualTo(4);
        OncePerFireTest.assertOncePerFireWithoutGaps(log, "cron");
        OncePerFireTest.assertOncePerFireWithoutGaps(log, "rate");
    }

    private static int moves(List<RunLog.Run> runs) {
        int moves = 0;
        for (int i = 1; i < runs.size(); i++) {
            if (!runs.get(i).instance().equals(runs.get(i - 1).instance())) {
                moves++;
            }
        }
        return moves;
    }

    private static ConfigurableApplicationContext start(DataSource dataSource, String name, RunLog log) {
        return TestInstance.start(
                dataSource, name, Duration.ZERO, TestInstance.Settings.shrunk(), log, TwentyJobs.class);
    }

    /** Waits until every running instance listens and sees exactly {@code names} alive. */
    private void awaitViews(List<String> names) {
        await().atMost(WAIT)
                .until(() -> instances.stream().allMatch(context -> {
                    FireNotices notices = context.getBean(ClusteredJobs.class).notices();
                    List<String> live = notices.order().live();
                    return notices.listening()
                            && live != null
                            && Set.copyOf(live).equals(Set.copyOf(names));
                }));
    }

    private static long totalRuns(RunLog log) {
        return JOBS.stream().mapToLong(log::count).sum();
    }

    private static long runsSince(RunLog log, Instant since, String instance) {
        return JOBS.stream()
                .flatMap(job -> log.runs(job).stream())
                .filter(run -> run.instance().equals(instance)
                        && run.fire() != null
                        && run.fire().isAfter(since))
                .count();
    }

    private static Instant lastFire(RunLog log) {
        return JOBS.stream()
                .flatMap(job -> log.runs(job).stream())
                .map(RunLog.Run::fire)
                .filter(java.util.Objects::nonNull)
                .max(Instant::compareTo)
                .orElse(Instant.EPOCH);
    }

    private long attempts() {
        return instances.stream()
                .mapToLong(
                        context -> context.getBean(ClusteredJobs.class).stats().claimCount())
                .sum();
    }

    /** Declares the sticky placement for an instance. */
    static class Sticky {
        @Bean
        FirePlacement firePlacement() {
            return FirePlacement.STICKY;
        }
    }

    /** Twenty cron jobs every second. */
    static class TwentyJobs {
        private final RunLog log;
        private final String instance;

        TwentyJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void j00() {
            log.record("j00", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j01() {
            log.record("j01", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j02() {
            log.record("j02", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j03() {
            log.record("j03", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j04() {
            log.record("j04", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j05() {
            log.record("j05", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j06() {
            log.record("j06", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j07() {
            log.record("j07", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j08() {
            log.record("j08", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j09() {
            log.record("j09", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j10() {
            log.record("j10", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j11() {
            log.record("j11", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j12() {
            log.record("j12", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j13() {
            log.record("j13", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j14() {
            log.record("j14", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j15() {
            log.record("j15", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j16() {
            log.record("j16", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j17() {
            log.record("j17", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j18() {
            log.record("j18", instance, System.nanoTime());
        }

        @Scheduled(cron = "* * * * * *")
        void j19() {
            log.record("j19", instance, System.nanoTime());
        }
    }
}
