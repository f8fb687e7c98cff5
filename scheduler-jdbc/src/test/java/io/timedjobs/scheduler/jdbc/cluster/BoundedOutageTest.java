package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.DatabaseLink;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A network cut of about ten seconds between one instance and its PostgreSQL, with Spring Boot's
 * default pool timeout (30 s): the scheduler's own bound, not the pool's, decides how long its
 * threads wait.
 */
class BoundedOutageTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(40));
    private static final Duration OUTAGE = Duration.ofSeconds(10);

    /** The local job's period. */
    private static final Duration LOCAL_PERIOD = Duration.ofMillis(200);

    /** Runs of the local job, in System.nanoTime(). */
    static final ConcurrentLinkedQueue<Long> LOCAL_RUNS = new ConcurrentLinkedQueue<>();

    /** Runs of the clustered fixed-rate jobs: local start and nominal fire. */
    static final ConcurrentLinkedQueue<ClusteredRun> CLUSTERED_RUNS = new ConcurrentLinkedQueue<>();

    record ClusteredRun(String job, Instant startedAt, Instant fire) {}

    private @Nullable ConfigurableApplicationContext instance;
    private @Nullable HikariDataSource dataSource;
    private @Nullable DatabaseLink forwarder;

    @AfterEach
    void tearDown() throws IOException {
        if (forwarder != null) {
            forwarder.restore();
        }
        if (instance != null) {
            instance.close();
        }
        if (dataSource != null) {
            dataSource.close();
        }
        if (forwarder != null) {
            forwarder.close();
        }
    }

    /**
     * While the link is cut, the local job keeps its rate (no gap longer than its period and 100 ms)
     * even though every worker has clustered fires due, the clustered fires are skipped and counted,
     * and none of them runs late after it.
     */
    @Test
    void shouldKeepLocalJobsOnScheduleAndSkipClusteredFiresThroughACut() throws IOException {
        String database = TestDatabases.newPostgresDatabaseName();
        forwarder = new DatabaseLink(TestDatabases.postgresPort());
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://localhost:" + forwarder.port() + "/" + database);
        config.setUsername("postgres");
        assertThat(config.getConnectionTimeout())
                .as("Boot's default pool timeout")
                .isEqualTo(30_000);
        dataSource = new HikariDataSource(config);
        new SchemaInitializer(ClusterDatabase.of(dataSource, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);
        LOCAL_RUNS.clear();
        CLUSTERED_RUNS.clear();
        instance = TestInstance.start(
                dataSource, "a", Duration.ZERO, TestInstance.Settings.shrunk(), new RunLog(), CutJobs.class);
        ClusteredJobs jobs = instance.getBean(ClusteredJobs.class);
        await().atMost(WAIT).until(() -> CLUSTERED_RUNS.size() >= 20);

        forwarder.cut(DatabaseLink.Outage.SILENT);
        long cutNanos = System.nanoTime();
        Instant cutAt = Instant.now();
        await().atMost(WAIT).until(() -> System.nanoTime() - cutNanos >= OUTAGE.toNanos());
        long skippedInCut = jobs.stats().firesSkipped(ClusterJobStats.SkipReason.DATABASE_DOWN);
        forwarder.restore();
        long restoreNanos = System.nanoTime();
        Instant restoredAt = Instant.now();
        await().atMost(WAIT)
                .until(() -> CLUSTERED_RUNS.stream()
                                .filter(run -> run.startedAt().isAfter(restoredAt))
                                .count()
                        >= 20);
        await().atMost(WAIT).until(() -> !jobs.outages().inOutage());

        List<Long> local = List.copyOf(LOCAL_RUNS);
        // The local job (every 200 ms) through the cut: no worker it needs waits on the database,
        // not even at the start of the cut, before anyone knows the database is away.
        StringBuilder perSecond = new StringBuilder();
        long longestGap = 0;
        long previous = cutNanos;
        for (long run : local) {
            if (run > cutNanos && run < restoreNanos) {
                longestGap = Math.max(longestGap, run - previous);
                previous = run;
            }
        }
        longestGap = Math.max(longestGap, restoreNanos - previous);
        for (long second = cutNanos; second + 1_000_000_000L <= restoreNanos; second += 1_000_000_000L) {
            long from = second;
            long fires = local.stream()
                    .filter(run -> run >= from && run < from + 1_000_000_000L)
                    .count();
            perSecond.append(fires).append(' ');
        }
        System.out.println("Local job fires per second through the cut: " + perSecond + "; longest gap "
                + Duration.ofNanos(longestGap).toMillis() + " ms; clustered fires skipped " + skippedInCut);
        assertThat(Duration.ofNanos(longestGap))
                .as("longest pause of the local job (every 200 ms) during the cut; per second: %s", perSecond)
                .isLessThanOrEqualTo(LOCAL_PERIOD.plusMillis(100));
        assertThat(skippedInCut)
                .as("clustered fires skipped as database-down during the cut")
                .isGreaterThan(20);
        // No fire of the cut ran, late, after it: nothing reached the database during it.
        assertThat(CLUSTERED_RUNS)
                .filteredOn(run ->
                        run.fire().isAfter(cutAt.plusMillis(500)) && run.fire().isBefore(restoredAt.minusMillis(500)))
                .as("clustered fires of the cut that ran")
                .isEmpty();
        assertThat(CLUSTERED_RUNS)
                .filteredOn(run -> run.startedAt().isAfter(restoredAt))
                .as("clustered runs more than a period late after the cut")
                .allSatisfy(run -> assertThat(Duration.between(run.fire(), run.startedAt()))
                        .isLessThan(Duration.ofMillis(500)));
    }

    /** Four clustered fixed-rate jobs every 250 ms (one per worker), and a local one every 200 ms. */
    static class CutJobs {

        @Scheduled(fixedRate = 250)
        void first() {
            clustered("first");
        }

        @Scheduled(fixedRate = 250)
        void second() {
            clustered("second");
        }

        @Scheduled(fixedRate = 250)
        void third() {
            clustered("third");
        }

        @Scheduled(fixedRate = 250)
        void fourth() {
            clustered("fourth");
        }

        @RunOnEveryInstance
        @Scheduled(fixedRate = 200)
        void local() {
            LOCAL_RUNS.add(System.nanoTime());
        }

        private static void clustered(String job) {
            CLUSTERED_RUNS.add(
                    new ClusteredRun(job, Instant.now(), Objects.requireNonNull(ClusteredJobs.currentFire())));
        }
    }
}
