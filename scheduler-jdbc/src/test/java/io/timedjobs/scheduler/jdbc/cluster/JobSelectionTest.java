package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/** Which jobs are clustered, what they are called, and what an instance with another cron zone does. */
class JobSelectionTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * Names are bean + method (+ #index for several @Scheduled on one method); @RunOnEveryInstance
     * jobs run on both instances at every fire.
     */
    @Test
    void shouldNameJobsAndRunOptedOutJobsEverywhere() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.H2);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        ConfigurableApplicationContext a =
                TestInstance.start(dataSource, "a", Duration.ZERO, settings, log, MixedJobs.class);
        instances.add(a);
        instances.add(TestInstance.start(dataSource, "b", Duration.ZERO, settings, log, MixedJobs.class));

        await().atMost(WAIT)
                .until(() ->
                        log.instances("everywhere") == 2 && log.fires("twice").size() >= 4);

        assertThat(a.getBean(ClusteredJobs.class).jobNames())
                .containsExactlyInAnyOrder("jobSelectionTest.MixedJobs.twice#0", "jobSelectionTest.MixedJobs.twice#1");
        assertThat(log.runs("everywhere")).allMatch(run -> run.fire() == null);
        assertThat(log.runsPerFire("twice").values()).allMatch(count -> count == 1);
        assertThat(new JdbcTemplate(dataSource).queryForList("SELECT job_name FROM timed_jobs_jobs", String.class))
                .containsExactlyInAnyOrder("jobSelectionTest.MixedJobs.twice#0", "jobSelectionTest.MixedJobs.twice#1");
    }

    /** A job listed in the local-jobs property runs on every instance. */
    @Test
    void shouldRunJobsListedByPropertyEverywhere() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.H2);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        for (String name : List.of("a", "b")) {
            ConfigurableApplicationContext context =
                    TestInstance.start(dataSource, name, Duration.ZERO, settings, log, ListedJob.class);
            instances.add(context);
        }
        await().atMost(WAIT).until(() -> log.instances("listed") == 2);
        assertThat(log.runs("listed")).allMatch(run -> run.fire() == null);
    }

    /**
     * An instance deployed with another cron zone changes the job's definition: from its start the
     * job fires in the new zone, by that instance alone, and the old one stands by; no fire runs
     * twice.
     */
    @Test
    void shouldSwitchACronJobToTheZoneOfTheInstanceDeployedLater() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.H2);
        RunLog log = new RunLog();
        TestInstance.Settings utc = TestInstance.Settings.shrunk();
        ConfigurableApplicationContext old =
                TestInstance.start(dataSource, "utc", Duration.ZERO, utc, log, CronJob.class);
        instances.add(old);
        await().atMost(WAIT).until(() -> log.count("cron") >= 1);
        instances.add(TestInstance.start(
                dataSource, "tokyo", Duration.ZERO, utc.withZone(ZoneId.of("Asia/Tokyo")), log, CronJob.class));
        await().atMost(WAIT)
                .until(() -> log.runs("cron").stream()
                                .filter(run -> run.instance().equals("tokyo"))
                                .count()
                        >= 3);

        List<RunLog.Run> runs = log.runs("cron");
        int firstByTokyo = runs.indexOf(runs.stream()
                .filter(run -> run.instance().equals("tokyo"))
                .findFirst()
                .orElseThrow());
        assertThat(runs.subList(firstByTokyo, runs.size()))
                .as("runs after the switch")
                .allMatch(run -> run.instance().equals("tokyo"));
        assertThat(log.runsPerFire("cron"))
                .allSatisfy((fire, count) ->
                        assertThat(count).as("runs of the fire at %s", fire).isOne());
        assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT time_zone FROM timed_jobs_jobs", String.class))
                .isEqualTo("Asia/Tokyo");
        assertThat(old.getBean(ClusteredJobs.class).stats().firesSkipped(SkipReason.SUPERSEDED))
                .as("fires the old instance stood by for")
                .isPositive();
    }

    /** One method with two @Scheduled, and a job that runs on every instance. */
    static class MixedJobs {
        private final RunLog log;
        private final String instance;

        MixedJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        @Scheduled(fixedRate = 1000)
        void twice() {
            log.record("twice", instance, System.nanoTime());
        }

        @RunOnEveryInstance
        @Scheduled(fixedRate = 300)
        void everywhere() {
            log.record("everywhere", instance, System.nanoTime());
        }
    }

    /** A fixed-rate job opted out by the property. */
    static class ListedJob {
        private final RunLog log;
        private final String instance;

        ListedJob(RunLog log, String instanceName, ClusteredJobs jobs) {
            this.log = log;
            this.instance = instanceName;
            jobs.setLocalJobs(Set.of("jobSelectionTest.ListedJob.listed"));
        }

        @Scheduled(fixedRate = 300)
        void listed() {
            log.record("listed", instance, System.nanoTime());
        }
    }

    /** A cron job every second, without a zone. */
    static class CronJob {
        private final RunLog log;
        private final String instance;

        CronJob(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            log.record("cron", instance, System.nanoTime());
        }
    }
}
