package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A job's definition through a rollout and a roll-back, instances of one JVM on H2: the definition
 * deployed later takes over at its first instance's start; an old instance restarting meanwhile
 * stands by; once every instance of the new definition has stopped, the old one takes the job back.
 * No fire runs twice throughout. Separate JVMs on PostgreSQL: {@code RollingDeployProcessesTest}.
 */
class DefinitionRolloutTest {

    private static final Duration WAIT = TestDelays.LONG;
    private static final ZoneId TOKYO = ZoneId.of("Asia/Tokyo");

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /** A rollout from zone UTC to Asia/Tokyo, an old instance restarted during it, and a roll-back. */
    @Test
    void shouldSwitchAtTheNewDefinitionsFirstStartAndBackOnlyWhenItsLastInstanceStopped() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.H2);
        RunLog log = new RunLog();
        TestInstance.Settings utc = TestInstance.Settings.shrunk();
        TestInstance.Settings tokyo = utc.withZone(TOKYO);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);

        ConfigurableApplicationContext a1 = start(dataSource, "a1", utc, log);
        await().atMost(WAIT).until(() -> runsBy(log, "a1") >= 2);

        ConfigurableApplicationContext b1 = start(dataSource, "b1", tokyo, log);
        assertThat(zoneOfRow(jdbc)).as("switched by b1's start").isEqualTo("Asia/Tokyo");
        int switchedAt = log.runs("tick").size();
        await().atMost(WAIT).until(() -> runsBy(log, "b1") >= 2);

        ConfigurableApplicationContext a2 = start(dataSource, "a2", utc, log);
        await().atMost(WAIT).until(() -> runsBy(log, "b1") >= 5);
        assertThat(zoneOfRow(jdbc)).as("a2 stands by").isEqualTo("Asia/Tokyo");
        assertThat(a2.getBean(ClusteredJobs.class).stats().firesWon()).isZero();
        List<RunLog.Run> afterSwitch =
                log.runs("tick").subList(switchedAt + 1, log.runs("tick").size());
        assertThat(afterSwitch)
                .as("runs after the switch")
                .allMatch(run -> run.instance().equals("b1"));

        b1.close(); // the last instance of Asia/Tokyo: a roll-back completes
        instances.remove(b1);
        await().atMost(WAIT).until(() -> "UTC".equals(zoneOfRow(jdbc)));
        long before = runsBy(log, "a1") + runsBy(log, "a2");
        await().atMost(WAIT).until(() -> runsBy(log, "a1") + runsBy(log, "a2") >= before + 3);

        assertThat(log.runsPerFire("tick"))
                .allSatisfy((fire, count) ->
                        assertThat(count).as("runs of the fire at %s", fire).isOne());
        assertThat(a1.getBean(ClusteredJobs.class).stats().firesSkipped(ClusterJobStats.SkipReason.SUPERSEDED)
                        + a2.getBean(ClusteredJobs.class).stats().firesSkipped(ClusterJobStats.SkipReason.SUPERSEDED))
                .as("a1 learned of the switch by a refused fire")
                .isPositive();
    }

    private ConfigurableApplicationContext start(
            DataSource dataSource, String name, TestInstance.Settings settings, RunLog log) {
        ConfigurableApplicationContext context =
                TestInstance.start(dataSource, name, Duration.ZERO, settings, log, EverySecond.class);
        instances.add(context);
        return context;
    }

    private static long runsBy(RunLog log, String instance) {
        return log.runs("tick").stream()
                .filter(run -> run.instance().equals(instance))
                .count();
    }

    private static String zoneOfRow(JdbcTemplate jdbc) {
        return jdbc.queryForObject("SELECT time_zone FROM timed_jobs_jobs", String.class);
    }

    /** A cron job every second, in the zone of the instance's settings. */
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
}
