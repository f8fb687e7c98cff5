package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.DatabaseLink;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Durable tasks claimed before the database went away, on a real PostgreSQL behind a Hikari pool
 * with Spring Boot's defaults (30 s connection timeout) and a link cut as a network fault cuts it.
 */
class DurableStartInOutageTest {

    private static final int TASKS = 10;

    private DatabaseLink link;
    private HikariDataSource pool;
    private DurableTaskEngine engine;

    @AfterEach
    void close() throws Exception {
        if (link != null) {
            link.restore();
        }
        if (engine != null) {
            engine.stop(Duration.ofSeconds(5));
        }
        if (pool != null) {
            pool.close();
        }
        if (link != null) {
            link.close();
        }
    }

    /**
     * A task whose lease still holds at its due time starts at its due time, however the database
     * behaves, and its outcome is written once the database is back.
     */
    @Test
    void shouldStartClaimedTasksOnTimeWhileTheirLeaseHoldsAndWriteTheOutcomeLater() throws Exception {
        link = new DatabaseLink(TestDatabases.postgresPort());
        pool = new HikariDataSource();
        pool.setJdbcUrl("jdbc:postgresql://localhost:" + link.port() + "/" + TestDatabases.newPostgresDatabaseName());
        pool.setUsername("postgres");
        ClusterDatabase database = DurableTestSupport.database(pool);
        DurableTaskSettings settings = new DurableTaskSettings(
                Duration.ofSeconds(10),
                Duration.ofMillis(200),
                Duration.ofSeconds(20),
                3,
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                200,
                4);
        RecordingHandler handler = new RecordingHandler();
        engine = DurableTaskEngine.builder(database)
                .instanceName("a")
                .handler("mail", handler)
                .settings(settings)
                .build();
        engine.start();
        Instant due = Instant.now().plusSeconds(4);
        for (int i = 0; i < TASKS; i++) {
            engine.tasks().schedule("mail", "claimed-" + i, due.plusMillis(100L * i), null);
        }
        await().atMost(TestDelays.LONG).until(() -> engine.queuedCount() == TASKS);

        link.cut(DatabaseLink.Outage.SILENT);
        await().atMost(TestDelays.LONG).until(() -> handler.totalRuns() == TASKS);
        List<Long> lateness = new ArrayList<>(handler.latenessMicros);
        lateness.sort(null);
        System.out.println("Claimed tasks started in the outage, lateness in ms: "
                + lateness.stream().map(micros -> micros / 1000).toList());
        assertThat(Duration.ofNanos(lateness.get(TASKS - 1) * 1000))
                .as("latest start after its due time (the database timeout is 2 s)")
                .isLessThan(Duration.ofMillis(500));

        link.restore();
        await().atMost(TestDelays.LONG)
                .until(() -> engine.tasks().find(DurableTaskQuery.all()).isEmpty());
        assertThat(handler.runs.values()).allSatisfy(runs -> assertThat(runs).hasValue(1));
    }
}
