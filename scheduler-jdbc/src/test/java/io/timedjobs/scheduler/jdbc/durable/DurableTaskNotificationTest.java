package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An instance with a handler and nothing due sleeps between polls on PostgreSQL, and still starts
 * what other instances schedule (announced through {@code LISTEN}/{@code NOTIFY}), polls when it
 * no longer hears the announcements, and rescues a dead instance's claims.
 */
class DurableTaskNotificationTest {

    private static final Duration WAIT = TestDelays.LONG;

    private final List<DurableTaskEngine> engines = new ArrayList<>();
    private final List<HikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void stop() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
        pools.forEach(HikariDataSource::close);
    }

    private ClusterDatabase newDatabase() {
        HikariDataSource pool = DurableTestSupport.newPostgres(16);
        pools.add(pool);
        return DurableTestSupport.database(pool);
    }

    private DurableTaskEngine engine(
            ClusterDatabase database, String name, RecordingHandler handler, DurableTaskSettings settings) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName(name)
                .handler("mail", handler)
                .settings(settings)
                .build();
        engines.add(engine);
        return engine;
    }

    private static DurableTaskSettings settings(Duration lookahead, Duration poll, Duration lease) {
        return new DurableTaskSettings(
                lookahead, poll, lease, 3, Duration.ofMillis(50), Duration.ofMillis(200), 100, 2);
    }

    /**
     * With a handler and a task pending an hour ahead, ten simulated minutes of polls every second
     * send fewer than 6 statements a minute (db-scheduler's idle poll at its defaults), heartbeat
     * included: the instance looks for work within its heartbeats, and counts once a minute. Polling
     * at every interval sends about 197.
     */
    @Test
    void shouldSendFewerThanSixStatementsAMinuteWhileNothingIsDueSoon() {
        StatementLog log = new StatementLog(DurableTestSupport.newPostgres(4));
        ClusterDatabase database = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        DurableTestSupport.database(log.dataSource());
        Duration poll = Duration.ofSeconds(1);
        Duration lease = Duration.ofSeconds(30);
        ManualTicker ticker = new ManualTicker();
        DatabaseClock clock = new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), ticker);
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                "sleeper",
                lease,
                LeaseRule.beatInterval(lease, poll),
                duration -> {});
        ClusterHeartbeat heartbeat = new ClusterHeartbeat(
                instance, clock, new OutageLog(DurableTaskNotificationTest.class, "sleeper"), poll, ticker);
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .heartbeat(heartbeat, clock)
                .handler("mail", new RecordingHandler())
                .settings(settings(Duration.ofSeconds(5), poll, lease))
                .build();
        engines.add(engine);
        engine.start();
        heartbeat.poll(); // registers
        engine.tasks().schedule("mail", "later", Instant.now().plus(Duration.ofHours(1)), null);
        await().atMost(WAIT).until(engine::listening);
        log.clear();

        int minutes = 10;
        for (int i = 0; i < minutes * 60; i++) {
            ticker.advance(poll);
            heartbeat.poll();
        }

        assertThat(engine.sleeping()).isTrue();
        assertThat(log.executed().size())
                .as("statements in %d simulated minutes: %s", minutes, log.executed())
                .isLessThan(6 * minutes);
        List<String> looks = log.containing("MIN(due_at)");
        assertThat(looks).as("looks").hasSizeGreaterThanOrEqualTo(4 * minutes - 1);
        assertThat(looks.subList(1, looks.size()))
                .as("looks after the one that put it to sleep: each within a heartbeat")
                .allMatch(statement -> statement.startsWith("WITH beat AS (UPDATE"));
    }

    /**
     * A task scheduled on an instance that does not run it (its engine is not started) is claimed by
     * the listening one at once, though that one polls only once an hour.
     */
    @Test
    void shouldStartATaskScheduledElsewhereWithoutWaitingForAPoll() {
        ClusterDatabase database = newDatabase();
        RecordingHandler sleeperHandler = new RecordingHandler();
        DurableTaskSettings hourly = settings(Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(2));
        DurableTaskEngine sleeper = engine(database, "sleeper", sleeperHandler, hourly);
        DurableTaskEngine producer = engine(database, "producer", new RecordingHandler(), hourly);
        sleeper.start();
        await().atMost(WAIT).until(sleeper::listening);

        producer.tasks().schedule("mail", "now", Duration.ofMillis(200), null);
        // Scheduled in a transaction held open after the write: an announcement delivered before the
        // commit would find no row to claim, and the task would wait for the next poll, an hour on.
        new TransactionTemplate(new DataSourceTransactionManager(database.dataSource())).executeWithoutResult(s -> {
            producer.tasks().schedule("mail", "committed", Duration.ofMillis(200), null);
            new JdbcTemplate(database.dataSource()).queryForList("SELECT pg_sleep(0.5)");
        });

        await().atMost(WAIT).until(() -> sleeperHandler.runsOf("now") == 1 && sleeperHandler.runsOf("committed") == 1);
        assertThat(sleeper.claimedCount()).isEqualTo(2);
    }

    /**
     * Two hundred tasks scheduled elsewhere in one transaction arrive together, and the listening
     * instance claims them in a few batch claims, not one claim each.
     */
    @Test
    void shouldClaimTasksAnnouncedTogetherInBatches() {
        HikariDataSource pool = DurableTestSupport.newPostgres(16);
        pools.add(pool);
        StatementLog log = new StatementLog(pool);
        ClusterDatabase database = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        DurableTestSupport.database(log.dataSource());
        RecordingHandler sleeperHandler = new RecordingHandler();
        DurableTaskSettings hourly = settings(Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(2));
        DurableTaskEngine sleeper = engine(database, "sleeper", sleeperHandler, hourly);
        DurableTaskEngine producer =
                engine(ClusterDatabase.of(pool, TableNames.defaults()), "producer", new RecordingHandler(), hourly);
        sleeper.start();
        await().atMost(WAIT).until(sleeper::listening);
        log.clear();

        int count = 200;
        new TransactionTemplate(new DataSourceTransactionManager(pool)).executeWithoutResult(s -> {
            for (int i = 0; i < count; i++) {
                producer.tasks().schedule("mail", "t" + i, Duration.ofMillis(500), null);
            }
        });

        await().atMost(WAIT).until(() -> sleeperHandler.totalRuns() == count);
        assertThat(log.containing("SKIP LOCKED").size())
                .as("claim statements for %d tasks announced together", count)
                .isLessThanOrEqualTo(10);
    }

    /**
     * Tasks scheduled in one transaction cost one statement for all, not one each, besides their
     * writes: those due within the lookahead are claimed here by one batch claim after the commit,
     * and those due beyond it are announced by one notification, sent before the commit.
     */
    @Test
    void shouldClaimAndAnnounceTasksScheduledInOneTransactionOnce() {
        HikariDataSource pool = DurableTestSupport.newPostgres(16);
        pools.add(pool);
        StatementLog log = new StatementLog(pool);
        ClusterDatabase database = ClusterDatabase.of(log.dataSource(), TableNames.defaults());
        DurableTestSupport.database(log.dataSource());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = engine(
                database,
                "scheduler",
                handler,
                settings(Duration.ofSeconds(5), Duration.ofHours(1), Duration.ofHours(2)));
        engine.start();
        await().atMost(WAIT).until(engine::listening);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(log.dataSource()));
        log.clear();

        transaction.executeWithoutResult(s -> {
            for (int i = 0; i < 50; i++) {
                engine.tasks().schedule("mail", "soon" + i, Duration.ofMillis(300), null);
                engine.tasks().schedule("mail", "later" + i, Duration.ofSeconds(8), null);
            }
        });

        await().atMost(WAIT).until(() -> handler.totalRuns() == 50);
        assertThat(log.containing("pg_notify")).as("announcements").hasSize(1);
        assertThat(log.containing("SKIP LOCKED").size()).as("claims").isLessThanOrEqualTo(4);
        // the later ones are left to the poll the announcement wakes, an hour on with these settings
        assertThat(engine.tasks().find(DurableTaskQuery.all().limit(1000)))
                .filteredOn(task -> task.key().startsWith("later"))
                .hasSize(50);
    }

    /**
     * A task due beyond the lookahead, scheduled elsewhere while an instance sleeps (it would look
     * again only in 15 s), is claimed by it ahead of its due time.
     */
    @Test
    void shouldWakeForATaskScheduledElsewhereBeyondTheLookahead() {
        ClusterDatabase database = newDatabase();
        RecordingHandler sleeperHandler = new RecordingHandler();
        DurableTaskSettings settings = settings(Duration.ofSeconds(2), Duration.ofMillis(100), Duration.ofSeconds(30));
        DurableTaskEngine sleeper = engine(database, "sleeper", sleeperHandler, settings);
        DurableTaskEngine producer = engine(database, "producer", new RecordingHandler(), settings);
        sleeper.start();
        await().atMost(WAIT).until(sleeper::sleeping);

        Instant due = Instant.now().plusSeconds(5);
        producer.tasks().schedule("mail", "soon", due, null);

        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        await().atMost(WAIT)
                .until(() -> jdbc.queryForObject(
                                "SELECT COUNT(*) FROM timed_jobs_tasks WHERE task_key = 'soon' AND state <> 'PENDING'",
                                Integer.class)
                        == 1);
        assertThat(Instant.now()).as("claimed ahead of its due time").isBefore(due);
        await().atMost(WAIT).until(() -> sleeperHandler.runsOf("soon") == 1);
    }

    /**
     * Its listening connection killed, an instance polls at every interval until it listens again,
     * and a task scheduled elsewhere meanwhile still runs.
     */
    @Test
    void shouldPollWhileItCannotListenAndListenAgain() {
        ClusterDatabase database = newDatabase();
        RecordingHandler sleeperHandler = new RecordingHandler();
        DurableTaskSettings settings = settings(Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofSeconds(30));
        DurableTaskEngine sleeper = engine(database, "sleeper", sleeperHandler, settings);
        DurableTaskEngine producer = engine(database, "producer", new RecordingHandler(), settings);
        sleeper.start();
        await().atMost(WAIT).until(sleeper::sleeping);

        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        int killed = jdbc.queryForObject(
                "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND query LIKE 'LISTEN%'",
                Integer.class);
        assertThat(killed).isEqualTo(1);
        producer.tasks().schedule("mail", "meanwhile", Duration.ofMillis(300), null);

        await().atMost(WAIT).until(() -> sleeperHandler.runsOf("meanwhile") == 1);
        await().atMost(WAIT).until(() -> sleeper.listening() && sleeper.sleeping());
        producer.tasks().schedule("mail", "after", Duration.ofMillis(300), null);
        await().atMost(WAIT).until(() -> sleeperHandler.runsOf("after") == 1);
    }

    /**
     * An instance asleep when another claims a task (scheduled there, so not announced) sees the claim
     * at its next wake, within half a lease, and rescues it once the claimer died and its lease ended.
     */
    @Test
    void shouldRescueTheClaimsOfAnInstanceThatDiedWhileItSlept() {
        ClusterDatabase database = newDatabase();
        RecordingHandler sleeperHandler = new RecordingHandler();
        RecordingHandler deadHandler = new RecordingHandler();
        DurableTaskSettings settings = settings(Duration.ofSeconds(2), Duration.ofMillis(100), Duration.ofSeconds(3));
        DurableTaskEngine sleeper = engine(database, "sleeper", sleeperHandler, settings);
        DurableTaskEngine doomed = engine(database, "doomed", deadHandler, settings);
        sleeper.start();
        await().atMost(WAIT).until(sleeper::sleeping);
        doomed.start();
        await().atMost(WAIT).until(() -> doomed.isRunning() && doomed.queuedCount() == 0);

        doomed.tasks().schedule("mail", "k", Duration.ofMillis(1500), null);
        await().atMost(WAIT).until(() -> doomed.queuedCount() == 1);
        assertThat(sleeper.sleeping()).isTrue();
        doomed.abandon();

        await().atMost(WAIT).until(() -> sleeper.rescuedCount() == 1);
        await().atMost(WAIT).until(() -> sleeperHandler.runsOf("k") == 1);
        assertThat(deadHandler.runsOf("k")).isZero();
    }
}
