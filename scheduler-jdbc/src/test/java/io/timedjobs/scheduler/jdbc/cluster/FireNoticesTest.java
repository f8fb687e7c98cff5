package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.database.TaskNotifications;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fires announced by the statement that records them (PostgreSQL): heard by the other instances,
 * which then leave each fire to the instance that tries it first, and never lose a fire by it.
 */
class FireNoticesTest {

    private static final Duration WAIT = TestDelays.LONG;
    private static final JobDefinition CRON = new JobDefinition("cron", "* * * * * *", "UTC", Duration.ZERO);

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private final List<FireNotices> notices = new ArrayList<>();

    @AfterEach
    void close() {
        instances.forEach(ConfigurableApplicationContext::close);
        notices.forEach(FireNotices::stop);
    }

    @Test
    void shouldMatchAFireHeardOnlyForItsJobInstantAndDefinition() {
        FireNotices heard = FireNotices.none();
        Instant fire = Instant.parse("2026-11-27T01:00:00Z");

        heard.heard(List.of(
                FireNotices.payload("report.send", "k1", fire),
                FireNotices.payload("job with spaces", "k1", fire.plusSeconds(1)),
                "not a notice",
                "x y"));

        assertThat(heard.recorded("report.send", fire, "k1")).isTrue();
        assertThat(heard.recorded("report.send", fire, "k2"))
                .as("another definition")
                .isFalse();
        assertThat(heard.recorded("report.send", fire.plusSeconds(1), "k1")).isFalse();
        assertThat(heard.recorded("job with spaces", fire.plusSeconds(1), "k1")).isTrue();
        assertThat(heard.recorded("other", fire, "k1")).isFalse();

        heard.heard(List.of(FireNotices.payload("report.send", "k1", fire.minusSeconds(1)))); // late, older
        assertThat(heard.recorded("report.send", fire, "k1"))
                .as("the latest fire is kept")
                .isTrue();
        assertThat(heard.listening()).isFalse();
        assertThat(heard.channel()).isNull();
    }

    /** A recorded fire is heard by another instance once its statement commits; one not recorded is never announced. */
    @Test
    void shouldAnnounceAFireWhenItIsRecordedAndOnlyThen() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        ClusterInstance a = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "a", Duration.ofSeconds(30));
        a.register();
        JobStore store = new JobStore(database, a);
        store.definitions().register("job", CRON, null, null);
        FireNotices heardOnB = FireNotices.of(database, "b", Duration.ofMillis(100));
        notices.add(heardOnB);
        heardOnB.start();
        await().atMost(WAIT).until(heardOnB::listening);
        assertThat(heardOnB.channel()).isEqualTo(TaskNotifications.firesChannel(database.tables()));
        Instant fire = database.dialect().currentTime(database.jdbc()).truncatedTo(ChronoUnit.SECONDS);
        Duration horizon = Duration.ofMinutes(1);

        JobStore.FireAndLease won =
                store.recordFireAndLease("job", CRON.key(), fire, horizon, Duration.ofMinutes(10), heardOnB.channel());
        assertThat(won.attempt().recorded()).isTrue();
        await().atMost(WAIT).until(() -> heardOnB.recorded("job", fire, CRON.key()));

        store.releaseLease("job");
        database.jdbc().update("UPDATE timed_jobs_jobs SET user_paused = TRUE");
        Instant pausedFire = fire.plusSeconds(1);
        assertThat(store.recordFireAndLease(
                                "job", CRON.key(), pausedFire, horizon, Duration.ofMinutes(10), heardOnB.channel())
                        .attempt()
                        .recorded())
                .isFalse();
        database.jdbc().update("UPDATE timed_jobs_jobs SET user_paused = FALSE");
        Instant next = fire.plusSeconds(2);
        store.recordFireAndLease("job", CRON.key(), next, horizon, Duration.ofMinutes(10), heardOnB.channel());
        await().atMost(WAIT).until(() -> heardOnB.recorded("job", next, CRON.key()));
        assertThat(heardOnB.recorded("job", pausedFire, CRON.key()))
                .as("a fire nobody recorded is never heard")
                .isFalse();
    }

    /**
     * Three instances of one job every second on PostgreSQL: every fire runs once, and the instances
     * that do not try a fire first, having heard it recorded, send nothing for it: fewer than two
     * record statements per fire across the three (three each without notices). The last winner
     * then stops; the others go on with every fire.
     */
    @Test
    void shouldLeaveEachFireToTheFirstInItsOrderAndLoseNoneWhenOneStops() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        java.util.Map<String, ConfigurableApplicationContext> byName = new java.util.LinkedHashMap<>();
        for (String name : List.of("a", "b", "c")) {
            ConfigurableApplicationContext started = TestInstance.start(
                    dataSource, name, Duration.ZERO, settings, log, OncePerFireTest.EverySecondJobs.class);
            instances.add(started);
            byName.put(name, started);
        }
        await().atMost(WAIT).until(() -> log.count("cron") >= 2);
        long attemptsBefore = attempts();
        long firesBefore = log.count("cron") + log.count("rate");
        await().atMost(WAIT).until(() -> log.count("cron") + log.count("rate") >= firesBefore + 10);
        long fires = log.count("cron") + log.count("rate") - firesBefore;
        long attempts = attempts() - attemptsBefore;

        assertThat(attempts)
                .as("record statements for %d fires on three instances", fires)
                .isLessThan(2 * fires);

        String winner = log.runs("cron").get(log.runs("cron").size() - 1).instance();
        OncePerFireTest.closeOneAndCheckTheOthers(instances, byName.get(winner), log);
    }

    /**
     * The listener follows the instance's registration: it listens once the instance has its row,
     * stops with it, and listens again when the instance starts again (a context stopped and
     * started), without a job being scheduled anew.
     */
    @Test
    void shouldListenWhileTheInstanceIsRegisteredAndAgainAfterARestart() {
        DataSource dataSource = OncePerFireTest.createTables(TestDatabases.Kind.POSTGRESQL);
        ConfigurableApplicationContext context = TestInstance.start(
                dataSource,
                "listener",
                Duration.ZERO,
                TestInstance.Settings.shrunk(),
                new RunLog(),
                OncePerFireTest.EverySecondJobs.class);
        instances.add(context);
        await().atMost(WAIT).until(() -> listenerThreads("listener") == 1);

        context.stop();
        await().atMost(WAIT).until(() -> listenerThreads("listener") == 0);

        context.start();
        await().atMost(WAIT).until(() -> listenerThreads("listener") == 1);
    }

    private static long listenerThreads(String instance) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("timed-jobs-listen-")
                        && t.getName().endsWith("-" + instance))
                .count();
    }

    private long attempts() {
        return instances.stream()
                .mapToLong(
                        context -> context.getBean(ClusteredJobs.class).stats().claimCount())
                .sum();
    }
}
