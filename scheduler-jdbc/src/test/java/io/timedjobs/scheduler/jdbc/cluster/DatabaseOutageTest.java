package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.jdbc.history.SkipReason;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.DatabaseLink;
import io.timedjobs.scheduler.testsupport.MariaDbServer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.FileSystemUtils;

/**
 * The database stopped for about five seconds and started again, under two instances: an embedded
 * PostgreSQL stopped and started, or MariaDB behind a forwarder that closes and refuses connections.
 */
@Tag("long")
class DatabaseOutageTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(40));

    /** Runs of the local job, per instance. */
    static final ConcurrentMap<String, AtomicLong> LOCAL_RUNS = new ConcurrentHashMap<>();

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private @Nullable EmbeddedPostgres postgres;
    private @Nullable HikariDataSource dataSource;
    private @Nullable Path directory;
    private @Nullable DatabaseLink forwarder;
    private int postgresPort;

    @AfterEach
    void tearDown() throws IOException {
        instances.forEach(ConfigurableApplicationContext::close);
        if (forwarder != null) {
            forwarder.close();
        }
        if (dataSource != null) {
            dataSource.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (directory != null) {
            FileSystemUtils.deleteRecursively(directory);
        }
    }

    /**
     * While the database is down, clustered fires are skipped and counted, the local job keeps
     * running, and the outage is logged once; when it is back, every fire again runs once, and each
     * fire of the outage has one fate across three instances, DATABASE_DOWN.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabases.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void shouldSkipClusteredFiresAndKeepLocalJobsDuringAnOutage(TestDatabases.Kind kind) throws IOException {
        if (kind == TestDatabases.Kind.MARIADB) {
            // The shared server runs on; a forwarder in front of it stops and starts as a server would.
            String url = kind.newDatabaseUrl();
            forwarder = new DatabaseLink(MariaDbServer.shared().port());
            dataSource = TestDatabases.pooled(
                    url.replace(":" + MariaDbServer.shared().port() + "/", ":" + forwarder.port() + "/"));
        } else {
            directory = Files.createTempDirectory("timed-jobs-outage");
            try (ServerSocket socket = new ServerSocket(0)) {
                postgresPort = socket.getLocalPort();
            }
            postgres = start(directory, postgresPort);
            dataSource = TestDatabases.pooled("jdbc:postgresql://localhost:" + postgresPort + "/postgres");
        }
        new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        RunLog log = new RunLog();
        TestInstance.Settings settings = TestInstance.Settings.shrunk();
        List<ClusteredJobs> jobs = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            ConfigurableApplicationContext context = TestInstance.start(
                    dataSource, name, Duration.ZERO, settings, RunHistorySettings.defaults(), log, OutageJobs.class);
            instances.add(context);
            jobs.add(context.getBean(ClusteredJobs.class));
        }
        await().atMost(WAIT).until(() -> log.fires("cron").size() >= 2);
        Instant firstFire = log.fires("cron").get(0);

        stopDatabase();
        long localA = LOCAL_RUNS.get("a").get();
        long localB = LOCAL_RUNS.get("b").get();
        // About five seconds: five fires each instance could not record.
        await().atMost(WAIT).until(() -> skippedDown(jobs) >= 15);
        assertThat(LOCAL_RUNS.get("a").get())
                .as("local job on a during the outage")
                .isGreaterThan(localA + 5);
        assertThat(LOCAL_RUNS.get("b").get())
                .as("local job on b during the outage")
                .isGreaterThan(localB + 5);
        assertThat(jobs).allSatisfy(j -> {
            assertThat(j.outages().inOutage()).isTrue();
            assertThat(j.outages().outageCount()).as("outages logged").isEqualTo(1);
        });

        startDatabase();
        Instant restarted = Instant.now();
        await().atMost(WAIT)
                .until(() ->
                        log.fires("cron").stream().filter(restarted::isBefore).count() >= 3);

        assertThat(log.runsPerFire("cron").values()).allMatch(count -> count == 1);
        List<Instant> after =
                log.fires("cron").stream().filter(restarted::isBefore).toList();
        for (int i = 1; i < after.size(); i++) {
            assertThat(Duration.between(after.get(i - 1), after.get(i))).isEqualTo(Duration.ofSeconds(1));
        }
        assertThat(jobs).allSatisfy(j -> assertThat(j.outages().outageCount()).isEqualTo(1));
        await().atMost(WAIT)
                .until(() -> jobs.stream().noneMatch(j -> j.outages().inOutage()));

        // Every fire has one fate: the outage's fires are one DATABASE_DOWN record, or a few.
        String job = instances.get(0).getBean(ClusteredJobs.class).jobNames().stream()
                .filter(name -> name.endsWith(".cron"))
                .findFirst()
                .orElseThrow();
        RunHistory history =
                new RunHistory(ClusterDatabase.of(dataSource, TableNames.defaults()), RunHistorySettings.defaults());
        Instant lastFire = log.fires("cron").get(log.fires("cron").size() - 1);
        // the outage's fires are written once past the horizon, when no instance may run them any more
        await().atMost(WAIT.plus(settings.fireHorizon()))
                .untilAsserted(() -> FatesTest.assertOneFatePerFire(history, job, firstFire, lastFire));
        assertThat(history.find(RunHistoryQuery.all().job(job).skipReason(SkipReason.DATABASE_DOWN)))
                .isNotEmpty()
                .allSatisfy(down -> assertThat(down.outcome()).isEqualTo(RunOutcome.SKIPPED))
                .extracting(RunRecord::fires)
                .satisfies(fires -> assertThat(
                                fires.stream().mapToLong(Long::longValue).sum())
                        .isGreaterThanOrEqualTo(4));
    }

    private void stopDatabase() throws IOException {
        if (forwarder != null) {
            forwarder.cut(DatabaseLink.Outage.REFUSED);
        } else {
            Objects.requireNonNull(postgres).close();
            postgres = null;
        }
    }

    private void startDatabase() throws IOException {
        if (forwarder != null) {
            forwarder.restore();
        } else {
            postgres = start(Objects.requireNonNull(directory), postgresPort);
        }
    }

    private static long skippedDown(List<ClusteredJobs> jobs) {
        return jobs.stream()
                .mapToLong(j -> j.stats().firesSkipped(ClusterJobStats.SkipReason.DATABASE_DOWN))
                .sum();
    }

    private static EmbeddedPostgres start(Path directory, int port) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(directory)
                .setCleanDataDirectory(false)
                .setPort(port)
                .start();
    }

    /** A clustered cron job every second and a local job every 200 ms. */
    static class OutageJobs {
        private final RunLog log;
        private final String instance;

        OutageJobs(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
            LOCAL_RUNS.put(instanceName, new AtomicLong());
        }

        @Scheduled(cron = "* * * * * *")
        void cron() {
            log.record("cron", instance, System.nanoTime());
        }

        @RunOnEveryInstance
        @Scheduled(fixedRate = 200)
        void local() {
            LOCAL_RUNS.get(instance).incrementAndGet();
        }
    }
}
