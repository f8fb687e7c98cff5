package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
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

/** Hourly jobs without an initial delay run at start-up, once across instances, as on one instance. */
class StartUpRunTest {

    private static final Duration WAIT = TestDelays.LONG;

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * The first instance runs the fixed-rate and fixed-delay jobs at once and the one with an
     * initial delay after it; a second instance started then tries the fixed-rate fires it just
     * missed, loses them to their records, and runs nothing.
     */
    @Test
    void shouldRunHourlyJobsOnceAtStartUpAcrossInstances() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.H2);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();

        instances.add(TestInstance.start(dataSource, "a", Duration.ZERO, settings, log, HourlyJobs.class));
        await().atMost(WAIT)
                .until(() -> log.count("rate") == 1 && log.count("delay") == 1 && log.count("delayedRate") == 1);
        RunLog.Run rate = log.runs("rate").get(0);
        RunLog.Run delayedRate = log.runs("delayedRate").get(0);
        assertThat(Duration.between(rate.fire(), delayedRate.fire()))
                .as("the initial delay counts from the same anchor")
                .isBetween(Duration.ofMillis(1000), Duration.ofMillis(1500));

        ConfigurableApplicationContext second =
                TestInstance.start(dataSource, "b", Duration.ZERO, settings, log, HourlyJobs.class);
        instances.add(second);
        ClusterJobStats stats = second.getBean(ClusteredJobs.class).stats();
        await().atMost(WAIT).until(() -> stats.firesSkipped(SkipReason.LOST) >= 2);
        await().during(Duration.ofSeconds(1))
                .atMost(WAIT)
                .until(() -> log.count("rate") + log.count("delay") + log.count("delayedRate") == 3);
        assertThat(stats.firesWon()).isZero();
        assertThat(log.instances("rate") + log.instances("delay") + log.instances("delayedRate"))
                .isEqualTo(3);
        assertThat(log.runs("rate").get(0).instance()).isEqualTo("a");
    }

    /** Hourly jobs: fixed rate and fixed delay without initial delay, fixed rate with 1 s of it. */
    static class HourlyJobs {
        private final RunLog log;
        private final String instance;

        HourlyJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(fixedRate = 3_600_000)
        void rate() {
            log.record("rate", instance, System.nanoTime());
        }

        @Scheduled(fixedDelay = 3_600_000)
        void delay() {
            log.record("delay", instance, System.nanoTime());
        }

        @Scheduled(fixedRate = 3_600_000, initialDelay = 1000)
        void delayedRate() {
            log.record("delayedRate", instance, System.nanoTime());
        }
    }
}
