package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/** Runs of one job never overlap across instances, and fixed delays count from any instance's completion. */
class NoOverlapTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * A fixed-delay job on three instances: runs follow each other, never overlap, and each starts
     * no sooner than the delay after the previous run's end, whichever instance ran it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldChainFixedDelayRunsAcrossInstances(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        for (String name : List.of("a", "b", "c")) {
            instances.add(TestInstance.start(dataSource, name, Duration.ZERO, settings, log, SlowJobs.class));
        }
        await().atMost(WAIT).until(() -> log.count("delay") >= 8);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        List<RunLog.Run> runs = sortedByStart(log.runs("delay"));
        for (int i = 1; i < runs.size(); i++) {
            long gap = runs.get(i).startNanos() - runs.get(i - 1).endNanos();
            // The delay is counted on the database's clock; allow the clock offsets' error.
            assertThat(gap)
                    .as("run %s starts %s ns after run %s ended", i, gap, i - 1)
                    .isGreaterThan(Duration.ofMillis(300 - 50).toNanos());
        }
        assertThat(log.runsPerFire("delay").values()).allMatch(count -> count == 1);
        assertThat(log.instances("delay")).as("runs moved between instances").isGreaterThan(1);
    }

    /**
     * A cron job every second whose runs last 1.5 s: on three instances, its runs never overlap;
     * fires that come while a run holds the lease are skipped, as on one instance.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldNotOverlapALongCronRunWithTheNextFire(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        List<ClusteredJobs> jobs = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            ConfigurableApplicationContext context =
                    TestInstance.start(dataSource, name, Duration.ZERO, settings, log, LongCronJob.class);
            instances.add(context);
            jobs.add(context.getBean(ClusteredJobs.class));
        }
        await().atMost(WAIT).until(() -> log.count("long") >= 4);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        List<RunLog.Run> runs = sortedByStart(log.runs("long"));
        for (int i = 1; i < runs.size(); i++) {
            assertThat(runs.get(i).startNanos())
                    .as("run %s overlaps run %s: %s", i, i - 1, runs)
                    .isGreaterThanOrEqualTo(runs.get(i - 1).endNanos());
        }
        assertThat(jobs.stream()
                        .mapToLong(j -> j.stats().firesSkipped(ClusterJobStats.SkipReason.RUNNING))
                        .sum())
                .as("fires skipped because the previous run held the lease")
                .isPositive();
    }

    private static List<RunLog.Run> sortedByStart(List<RunLog.Run> runs) {
        List<RunLog.Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(RunLog.Run::startNanos));
        return sorted;
    }

    /** Blocks the calling thread for a while without polling: a latch nobody counts down. */
    static void work(Duration duration) {
        try {
            new CountDownLatch(1).await(duration.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** A fixed-delay job of 300 ms whose runs take 400 ms. */
    static class SlowJobs {
        private final RunLog log;
        private final String instance;

        SlowJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(fixedDelay = 300)
        void delay() {
            long start = System.nanoTime();
            work(Duration.ofMillis(400));
            log.record("delay", instance, start);
        }
    }

    /** A cron job every second whose runs take 1.5 s. */
    static class LongCronJob {
        private final RunLog log;
        private final String instance;

        LongCronJob(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void run() {
            long start = System.nanoTime();
            work(Duration.ofMillis(1500));
            log.record("long", instance, start);
        }
    }
}
