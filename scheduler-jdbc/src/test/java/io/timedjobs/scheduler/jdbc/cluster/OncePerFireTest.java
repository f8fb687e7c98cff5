package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/** Several instances in one JVM, each a Spring context, on one database. */
class OncePerFireTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * A cron job every second and a fixed-rate 1 s job, three instances started at different times
     * and one closed midway: every fire runs exactly once, and none is lost after the close.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRunEveryFireOnceAcrossInstancesStartedAndStoppedAtDifferentTimes(TestDatabases.Kind kind) {
        DataSource dataSource = createTables(kind);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();

        instances.add(TestInstance.start(dataSource, "a", Duration.ZERO, settings, log, EverySecondJobs.class));
        await().atMost(WAIT).until(() -> log.count("cron") >= 2 && log.count("rate") >= 2);
        instances.add(TestInstance.start(dataSource, "b", Duration.ZERO, settings, log, EverySecondJobs.class));
        long seen = log.count("cron");
        await().atMost(WAIT).until(() -> log.count("cron") >= seen + 2);
        instances.add(TestInstance.start(dataSource, "c", Duration.ZERO, settings, log, EverySecondJobs.class));
        long seenAll = log.count("cron");
        await().atMost(WAIT).until(() -> log.count("cron") >= seenAll + 3);

        closeOneAndCheckTheOthers(instances, instances.get(0), log);
        assertThat(log.instances("cron") + log.instances("rate"))
                .as("fires went to more than one instance")
                .isGreaterThan(2);
    }

    /** Instance clocks 2 s ahead and 2 s behind: still one run per fire, and no fire missed. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRunEveryFireOnceWithSkewedClocks(TestDatabases.Kind kind) {
        DataSource dataSource = createTables(kind);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();

        instances.add(
                TestInstance.start(dataSource, "early", Duration.ofSeconds(2), settings, log, EverySecondJobs.class));
        instances.add(TestInstance.start(dataSource, "exact", Duration.ZERO, settings, log, EverySecondJobs.class));
        instances.add(
                TestInstance.start(dataSource, "late", Duration.ofSeconds(-2), settings, log, EverySecondJobs.class));
        await().atMost(WAIT)
                .until(() -> log.fires("cron").size() >= 6 && log.fires("rate").size() >= 6);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        assertOncePerFireWithoutGaps(log, "cron");
        assertOncePerFireWithoutGaps(log, "rate");
    }

    static DataSource createTables(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        return dataSource;
    }

    /**
     * Closes {@code stopped}, waits for three fires of each job of {@link EverySecondJobs} after it,
     * closes the others, and checks that every fire of each job ran once, none lost.
     */
    static void closeOneAndCheckTheOthers(
            List<ConfigurableApplicationContext> instances, ConfigurableApplicationContext stopped, RunLog log) {
        instances.remove(stopped);
        stopped.close();
        Instant closedAt = Instant.now();
        await().atMost(WAIT)
                .until(() -> log.fires("cron").stream()
                                        .filter(closedAt::isBefore)
                                        .count()
                                >= 3
                        && log.fires("rate").stream().filter(closedAt::isBefore).count() >= 3);
        instances.forEach(ConfigurableApplicationContext::close);
        instances.clear();

        assertOncePerFireWithoutGaps(log, "cron");
        assertOncePerFireWithoutGaps(log, "rate");
    }

    /** Each nominal fire ran once, and the fires are one second apart with none missing. */
    static void assertOncePerFireWithoutGaps(RunLog log, String job) {
        Map<Instant, Long> perFire = log.runsPerFire(job);
        assertThat(perFire).isNotEmpty();
        assertThat(perFire.values()).as("runs per fire of %s: %s", job, perFire).allMatch(count -> count == 1);
        List<Instant> fires = log.fires(job);
        for (int i = 1; i < fires.size(); i++) {
            assertThat(Duration.between(fires.get(i - 1), fires.get(i)))
                    .as("gap in the fires of %s: %s", job, fires)
                    .isEqualTo(Duration.ofSeconds(1));
        }
        assertThat(log.count(job)).as("every run of %s had a fire", job).isEqualTo(perFire.size());
    }

    /** A cron job every second and a fixed-rate job every second. */
    static class EverySecondJobs {
        private final RunLog log;
        private final String instance;

        EverySecondJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            log.record("cron", instance, System.nanoTime());
        }

        @Scheduled(fixedRate = 1000)
        void rate() {
            log.record("rate", instance, System.nanoTime());
        }
    }
}
