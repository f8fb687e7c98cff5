package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.Ticker;
import io.timedjobs.scheduler.jdbc.LoggedWarnings;
import io.timedjobs.scheduler.jdbc.cluster.ClusterJobStats.SkipReason;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * One database call in flight for longer than {@link SlowCalls#SUSPECT} (a slow statement, or the
 * start of an outage), with a clustered job whose fires come meanwhile on a scheduler of four workers.
 */
class SuspectCallTest {

    private static final int WORKERS = 4;

    private final SlowCalls calls = new SlowCalls("a");
    private final ClusterJobStats stats = new ClusterJobStats();
    private final AtomicInteger runs = new AtomicInteger();
    private CronJob job;

    /**
     * A suspect call skips no fire while there is room for the fire's own calls; with no room left,
     * the fires are skipped as database-down, and one WARN says so for the whole spell.
     */
    @Test
    void shouldSkipOnSuspicionOnlyWithoutRoomAndSaySoOnce() {
        start();
        Object slow = calls.begin();
        await().atMost(Duration.ofSeconds(10)).until(calls::suspect);

        fire();
        assertThat(runs)
                .as("runs of a fire while one call is suspect, with room")
                .hasValue(1);
        assertThat(stats.job("job").skipped()).containsEntry(SkipReason.DATABASE_DOWN, 0L);

        List<Object> others = new ArrayList<>();
        for (int i = 1; i < WORKERS - 1; i++) {
            others.add(calls.begin()); // with the slow one, every worker but one waits on the database
        }
        try (LoggedWarnings warnings = LoggedWarnings.capture()) {
            fire();
            fire();

            assertThat(runs).as("runs with no room and a suspect call").hasValue(1);
            assertThat(stats.job("job").skipped()).containsEntry(SkipReason.DATABASE_DOWN, 2L);
            assertThat(warnings.lines())
                    .filteredOn(line -> line.contains("longer than " + SlowCalls.SUSPECT.toMillis() + " ms"))
                    .as("warnings of the spell")
                    .hasSize(1);
        }
        others.forEach(calls::end);
        calls.end(slow);
    }

    private void start() {
        ClusterDatabase database =
                ClusterDatabase.of(OncePerFireTest.createTables(TestDatabases.Kind.H2), TableNames.defaults());
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "a", Duration.ofSeconds(30));
        instance.register();
        DatabaseClock clock =
                new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), Ticker.system());
        clock.measure();
        JobContext context = new JobContext(
                new JobStore(database, instance),
                clock,
                stats,
                new OutageLog(SuspectCallTest.class, "suspect call"),
                new JobContext.Timings(Duration.ofSeconds(1), Duration.ofMinutes(10), Duration.ofMinutes(1)),
                FireNotices.none(),
                calls);
        job = new CronJob("job", runs::incrementAndGet, context, "* * * * * *", ZoneOffset.UTC);
        job.workers(WORKERS);
    }

    private void fire() {
        job.nextExecution(new SimpleTriggerContext());
        job.run();
    }
}
