package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
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

/** A clustered job paused through one instance's row flag: no instance runs it until resumed. */
class PauseTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * Two instances run a cron job and a fixed-delay job; pausing both through instance a stops
     * their runs on a and b (each counts the cron fires skipped as paused), and resuming brings them
     * back.
     */
    @Test
    void shouldStopTheFiresOnEveryInstanceWhilePaused() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.H2);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        ConfigurableApplicationContext a =
                TestInstance.start(dataSource, "a", Duration.ZERO, settings, log, PausedJobs.class);
        instances.add(a);
        ConfigurableApplicationContext b =
                TestInstance.start(dataSource, "b", Duration.ZERO, settings, log, PausedJobs.class);
        instances.add(b);
        await().atMost(WAIT).until(() -> log.count("cron") >= 2 && log.count("delay") >= 2);

        JobStore store = new JobStore(
                a.getBean(ClusterDatabase.class),
                a.getBean(ClusterHeartbeat.class).instance());
        List<String> names = a.getBean(ClusteredJobs.class).jobNames();
        assertThat(names).hasSize(2);
        for (String name : names) {
            assertThat(store.setPaused(name, true)).isTrue();
            assertThat(store.isPaused(name)).isTrue();
        }
        ClusterJobStats statsA = a.getBean(ClusteredJobs.class).stats();
        ClusterJobStats statsB = b.getBean(ClusteredJobs.class).stats();
        // Runs under way when the pause came may still finish; two skipped cron fires on each
        // instance later, none is under way.
        await().atMost(WAIT)
                .until(() ->
                        statsA.firesSkipped(SkipReason.PAUSED) >= 2 && statsB.firesSkipped(SkipReason.PAUSED) >= 2);
        long cron = log.count("cron");
        long delay = log.count("delay");
        long skippedA = statsA.firesSkipped(SkipReason.PAUSED);
        long skippedB = statsB.firesSkipped(SkipReason.PAUSED);
        await().atMost(WAIT)
                .until(() -> statsA.firesSkipped(SkipReason.PAUSED) >= skippedA + 3
                        && statsB.firesSkipped(SkipReason.PAUSED) >= skippedB + 3);
        assertThat(log.count("cron")).as("cron runs while paused").isEqualTo(cron);
        assertThat(log.count("delay")).as("fixed-delay runs while paused").isEqualTo(delay);

        for (String name : names) {
            assertThat(store.setPaused(name, false)).isTrue();
        }
        await().atMost(WAIT).until(() -> log.count("cron") >= cron + 2 && log.count("delay") >= delay + 2);
    }

    /** A cron job every second and a fixed-delay job 300 ms after each run. */
    static class PausedJobs {
        private final RunLog log;
        private final String instance;

        PausedJobs(RunLog log, String instanceName) {
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
    }
}
