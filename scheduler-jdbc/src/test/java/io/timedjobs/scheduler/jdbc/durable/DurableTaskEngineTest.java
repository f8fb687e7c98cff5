package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.database.LeaseRule;
import io.timedjobs.scheduler.jdbc.database.OutageLog;
import io.timedjobs.scheduler.jdbc.database.StatementLog;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Durable tasks end to end on real databases, with several engines (instances) in one JVM sharing
 * one database: firing, fences, rescue, shutdown, failure and transactions.
 */
class DurableTaskEngineTest {

    private static final Duration WAIT = TestDelays.LONG;

    private final List<DurableTaskEngine> engines = new ArrayList<>();

    @AfterEach
    void stopEngines() {
        engines.forEach(engine -> engine.stop(Duration.ofSeconds(5)));
    }

    /**
     * Settings for tests that watch a task wait in the in-memory queue: claimed at once (5 s
     * lookahead), due {@link #QUEUED_DUE} later, so that even a stalled machine sees it queued.
     */
    private static final DurableTaskSettings WIDE_LOOKAHEAD = new DurableTaskSettings(
            Duration.ofSeconds(5),
            Duration.ofMillis(50),
            Duration.ofSeconds(1),
            3,
            Duration.ofMillis(50),
            Duration.ofMillis(200),
            200,
            4);

    private static final Duration QUEUED_DUE = Duration.ofSeconds(2);

    private DurableTaskEngine start(ClusterDatabase database, String name, DurableTaskHandler<?> handler) {
        return start(database, name, handler, DurableTestSupport.fastSettings());
    }

    private DurableTaskEngine start(
            ClusterDatabase database, String name, DurableTaskHandler<?> handler, DurableTaskSettings settings) {
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName(name)
                .handler("mail", handler)
                .settings(settings)
                .transactionManager(new DataSourceTransactionManager(database.dataSource()))
                .build();
        engines.add(engine);
        engine.start();
        return engine;
    }

    /** A task due soon runs once, at (not before) its due time, and its row goes. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRunATaskOnceAtItsDueTime(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = start(database, "a", handler);
        Instant due = Instant.now().plusMillis(300);

        engine.tasks().schedule("mail", "k", due, "hello");

        await().atMost(WAIT).until(() -> handler.runsOf("k") == 1);
        assertThat(handler.tasks.get(0).payload()).isEqualTo("hello");
        assertThat(handler.tasks.get(0).idempotencyKey())
                .isEqualTo(Long.toString(handler.tasks.get(0).id()));
        await().atMost(WAIT).until(() -> engine.tasks().find("mail", "k").isEmpty());
        assertThat(engine.completedCount()).isEqualTo(1);
    }

    /** A task scheduled in a transaction that rolls back never runs and leaves no row. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldNeverRunATaskWhoseTransactionRolledBack(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = start(database, "a", handler);
        TransactionTemplate transaction =
                new TransactionTemplate(new DataSourceTransactionManager(database.dataSource()));

        transaction.executeWithoutResult(status -> {
            engine.tasks().schedule("mail", "rolled-back", Duration.ZERO, null);
            status.setRollbackOnly();
        });
        transaction.executeWithoutResult(
                status -> engine.tasks().schedule("mail", "committed", Duration.ofMillis(100), null));

        await().atMost(WAIT).until(() -> handler.runsOf("committed") == 1);
        await().atMost(WAIT)
                .until(() -> engine.tasks().find(DurableTaskQuery.all()).isEmpty());
        assertThat(handler.runsOf("rolled-back")).isZero();
    }

    /**
     * A task scheduled within the lookahead is claimed by its own instance right after commit: with a
     * poll interval of a minute it still runs on time.
     */
    @Test
    void shouldClaimATaskDueSoonRightAfterCommitWithoutAPoll() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskSettings slowPolls = new DurableTaskSettings(
                Duration.ofSeconds(5),
                Duration.ofMinutes(1),
                Duration.ofMinutes(2),
                3,
                Duration.ofMillis(50),
                Duration.ofMillis(50),
                100,
                2);
        DurableTaskEngine engine = start(database, "a", handler, slowPolls);
        TransactionTemplate transaction =
                new TransactionTemplate(new DataSourceTransactionManager(database.dataSource()));

        transaction.executeWithoutResult(status -> engine.tasks().schedule("mail", "k", Duration.ofMillis(200), null));

        await().atMost(TestDelays.LONG).until(() -> handler.runsOf("k") == 1);
        assertThat(engine.claimedCount()).isEqualTo(1);
    }

    /** A task cancelled after another instance claimed it does not run there. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldNotRunATaskCancelledAfterAnotherInstanceClaimedIt(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RecordingHandler handlerA = new RecordingHandler();
        DurableTaskEngine a = start(database, "a", handlerA, WIDE_LOOKAHEAD);
        DurableTaskEngine b = DurableTaskEngine.builder(database)
                .instanceName("b")
                .handler("mail", new RecordingHandler())
                .settings(DurableTestSupport.fastSettings())
                .build(); // not started: schedules and cancels only

        b.tasks().schedule("mail", "cancelled", QUEUED_DUE, null);
        await().atMost(WAIT)
                .until(() -> b.tasks().find("mail", "cancelled").orElseThrow().state() == DurableTaskState.CLAIMED);
        assertThat(b.tasks().cancel("mail", "cancelled")).isTrue();
        b.tasks().schedule("mail", "marker", QUEUED_DUE.plusMillis(300), null);

        await().atMost(WAIT).until(() -> handlerA.runsOf("marker") == 1);
        assertThat(handlerA.runsOf("cancelled")).isZero();
        assertThat(a.fencedCount()).isEqualTo(1);
    }

    /** A task rescheduled after another instance claimed it runs in its new form only. */
    @Test
    void shouldRunARescheduledTaskOnlyInItsNewForm() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        RecordingHandler handlerA = new RecordingHandler();
        DurableTaskEngine a = start(database, "a", handlerA, WIDE_LOOKAHEAD);
        DurableTaskEngine b = DurableTaskEngine.builder(database)
                .instanceName("b")
                .handler("mail", new RecordingHandler())
                .settings(DurableTestSupport.fastSettings())
                .build();

        long id = b.tasks().schedule("mail", "k", QUEUED_DUE, "old");
        await().atMost(WAIT)
                .until(() -> b.tasks().find("mail", "k").orElseThrow().state() == DurableTaskState.CLAIMED);
        assertThat(b.tasks().schedule("mail", "k", QUEUED_DUE.plusMillis(300), "new"))
                .isEqualTo(id);

        await().atMost(WAIT).until(() -> handlerA.runsOf("k") == 1);
        assertThat(handlerA.tasks).extracting(DurableTask::payload).containsExactly("new");
        assertThat(handlerA.tasks.get(0).id()).isEqualTo(id);
    }

    /** Claimed tasks that have not started go back at a graceful stop, and another instance runs them. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldHandClaimedTasksBackAtAGracefulStop(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RecordingHandler handlerA = new RecordingHandler();
        DurableTaskEngine a = start(database, "a", handlerA, WIDE_LOOKAHEAD);
        a.tasks().schedule("mail", "k", QUEUED_DUE, null);
        await().atMost(WAIT).until(() -> a.queuedCount() == 1);

        a.stop(Duration.ofSeconds(5));

        assertThat(a.tasks().find("mail", "k").orElseThrow().state()).isEqualTo(DurableTaskState.PENDING);
        RecordingHandler handlerB = new RecordingHandler();
        start(database, "b", handlerB);
        await().atMost(WAIT).until(() -> handlerB.runsOf("k") == 1);
        assertThat(handlerA.runsOf("k")).isZero();
    }

    /** A null timeout is refused at stop with a message that names it, and the engine keeps running. */
    @Test
    void shouldRefuseANullTimeoutAtStop() {
        DurableTaskEngine engine =
                start(DurableTestSupport.database(TestDatabases.Kind.H2.newDatabase()), "a", new RecordingHandler());

        assertThatThrownBy(() -> engine.stop(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("timeout")
                .hasMessageContaining("Duration.ZERO");

        assertThat(engine.isRunning()).isTrue();
        engine.stop(Duration.ofSeconds(5));
        assertThat(engine.isRunning()).isFalse();
    }

    /** A task survives a full restart of the only instance. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRunATaskScheduledBeforeARestart(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        DurableTaskEngine first = start(DurableTestSupport.database(dataSource), "first", new RecordingHandler());
        first.tasks().schedule("mail", "k", Duration.ofMillis(800), "survives");
        first.stop(Duration.ofSeconds(5));

        RecordingHandler handler = new RecordingHandler();
        start(DurableTestSupport.database(dataSource), "second", handler);

        await().atMost(WAIT).until(() -> handler.runsOf("k") == 1);
        assertThat(handler.tasks.get(0).payload()).isEqualTo("survives");
    }

    /** The claims of an instance that died are taken over within lease plus poll interval. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRescueTheClaimsOfADeadInstance(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        RecordingHandler handlerA = new RecordingHandler();
        DurableTaskEngine a = start(database, "a", handlerA, WIDE_LOOKAHEAD);
        a.tasks().schedule("mail", "k", QUEUED_DUE, null);
        await().atMost(WAIT).until(() -> a.queuedCount() == 1);

        a.abandon();
        long diedAt = System.nanoTime();
        RecordingHandler handlerB = new RecordingHandler();
        DurableTaskEngine b = start(database, "b", handlerB, WIDE_LOOKAHEAD);

        await().atMost(WAIT).until(() -> b.rescuedCount() == 1);
        Duration took = Duration.ofNanos(System.nanoTime() - diedAt);
        assertThat(took)
                .isLessThan(WIDE_LOOKAHEAD
                        .lease()
                        .plus(WIDE_LOOKAHEAD.pollInterval())
                        .plusSeconds(1));
        await().atMost(WAIT).until(() -> handlerB.runsOf("k") == 1);
        assertThat(handlerA.runsOf("k")).isZero();
    }

    /** A failing task is retried with backoff and stays FAILED, with its last error, after its attempts. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRetryAFailingTaskThenKeepItAsFailed(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        AtomicInteger attempts = new AtomicInteger();
        DurableTaskHandler<String> failing = new DurableTaskHandler<>() {
            @Override
            public Class<String> payloadType() {
                return String.class;
            }

            @Override
            public void handle(DurableTask<String> task) {
                attempts.incrementAndGet();
                throw new IllegalStateException("boom " + task.attempt());
            }
        };
        DurableTaskEngine engine = start(database, "a", failing);

        engine.tasks().schedule("mail", "k", Duration.ZERO, null);

        await().atMost(WAIT)
                .until(() -> engine.tasks().find("mail", "k").orElseThrow().state() == DurableTaskState.FAILED);
        DurableTaskInfo failed = engine.tasks().find("mail", "k").orElseThrow();
        assertThat(failed.attempts()).isEqualTo(3);
        assertThat(failed.lastError()).contains("boom 3");
        assertThat(attempts).hasValue(3);
        assertThat(engine.failedCount()).isEqualTo(3);
    }

    /**
     * A zombie's late completion is refused: the instance whose lease expired mid-run cannot complete
     * the task another instance took over, and the writes of a handler that runs in the completion's
     * transaction roll back with the refused completion.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefuseTheLateCompletionOfAZombie(TestDatabases.Kind kind) throws Exception {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
        jdbc.execute("CREATE TABLE effects (task_id BIGINT NOT NULL, instance VARCHAR(20) NOT NULL)");
        CountDownLatch zombieRunning = new CountDownLatch(1);
        CountDownLatch releaseZombie = new CountDownLatch(1);
        DurableTaskHandler<String> zombieHandler = new EffectHandler(jdbc, "zombie", () -> {
            zombieRunning.countDown();
            releaseZombie.await(30, TimeUnit.SECONDS);
        });
        // the zombie is built but never started: nothing renews its lease while its handler runs
        DurableTaskEngine zombie = DurableTaskEngine.builder(database)
                .instanceName("zombie")
                .handler("mail", zombieHandler)
                .settings(DurableTestSupport.fastSettings())
                .transactionManager(new DataSourceTransactionManager(database.dataSource()))
                .build();
        zombie.tasks().schedule("mail", "k", Duration.ZERO, null);
        Thread zombieThread = new Thread(() -> DurableTaskTesting.runDueNow(zombie));
        zombieThread.start();
        assertThat(zombieRunning.await(10, TimeUnit.SECONDS)).isTrue();

        DurableTaskEngine rescuer = start(database, "rescuer", new EffectHandler(jdbc, "rescuer", () -> {}));
        await().atMost(WAIT).until(() -> rescuer.completedCount() == 1);
        releaseZombie.countDown();
        zombieThread.join(10_000);

        assertThat(zombie.fencedCount()).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT instance FROM effects", String.class))
                .containsExactly("rescuer");
        assertThat(rescuer.tasks().find(DurableTaskQuery.all())).isEmpty();
        assertThat(rescuer.rescuedCount()).isEqualTo(1);
    }

    /**
     * A run three leases long keeps its claim: the leases are renewed a quarter of the lease apart,
     * not at every poll (20 polls a lease here), and another instance polling all along never takes
     * the task over.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepALongRunClaimedWithFewRenewals(TestDatabases.Kind kind) throws Exception {
        StatementLog log = new StatementLog(kind.newDatabase());
        ClusterDatabase database = DurableTestSupport.database(log.dataSource());
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        DurableTaskHandler<String> slow = new EffectHandler(new JdbcTemplate(database.dataSource()), "a", () -> {
            running.countDown();
            // the work itself: three leases long
            assertThat(never.await(3_000, TimeUnit.MILLISECONDS)).isFalse();
        });
        new JdbcTemplate(database.dataSource())
                .execute("CREATE TABLE effects (task_id BIGINT NOT NULL, instance VARCHAR(20) NOT NULL)");
        DurableTaskEngine a = start(database, "a", slow);
        a.tasks().schedule("mail", "long", Duration.ZERO, null);
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        RecordingHandler other = new RecordingHandler();
        DurableTaskEngine b = start(database, "b", other);
        log.clear();

        await().atMost(WAIT).until(() -> a.completedCount() == 1);

        assertThat(a.fencedCount()).isZero();
        assertThat(b.rescuedCount()).isZero();
        assertThat(other.runsOf("long")).isZero();
        List<String> renewals = log.containing("SET lease_until");
        assertThat(renewals)
                .as("lease renewals of two instances over three leases")
                .hasSizeLessThanOrEqualTo(2 * (3 * LeaseRule.RENEWALS_PER_LEASE + 2));
    }

    /**
     * A task that ends between the end of a silence longer than the lease and the heartbeat's next
     * poll (a process resumed from a freeze: its worker wakes first) is still named in the warning of
     * that silence: it was held all through it.
     */
    @Test
    void shouldNameATaskThatEndedAsTheSilenceEndedInItsWarning() throws Exception {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        Duration lease = Duration.ofSeconds(5);
        Duration poll = Duration.ofMillis(500);
        ManualTicker ticker = new ManualTicker();
        DatabaseClock clock = new DatabaseClock(database.jdbc(), database.dialect(), Clock.systemUTC(), ticker);
        ClusterInstance instance = new ClusterInstance(
                database.jdbc(),
                database.dialect(),
                database.tables(),
                "a",
                lease,
                LeaseRule.beatInterval(lease, poll),
                duration -> {});
        ClusterHeartbeat heartbeat =
                new ClusterHeartbeat(instance, clock, new OutageLog(DurableTaskEngineTest.class, "a"), poll, ticker);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .handler("mail", new EffectHandler(new JdbcTemplate(database.dataSource()), "a", () -> {
                    running.countDown();
                    release.await(30, TimeUnit.SECONDS);
                }))
                .settings(DurableTestSupport.fastSettings())
                .transactionManager(new DataSourceTransactionManager(database.dataSource()))
                .heartbeat(heartbeat, clock)
                .build();
        new JdbcTemplate(database.dataSource())
                .execute("CREATE TABLE effects (task_id BIGINT NOT NULL, instance VARCHAR(20) NOT NULL)");
        engines.add(engine);
        engine.start();
        Logger logger = (Logger) LoggerFactory.getLogger(ClusterHeartbeat.class);
        Logger engineLogger = (Logger) LoggerFactory.getLogger(DurableTaskEngine.class);
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        logger.addAppender(warnings);
        engineLogger.addAppender(warnings);
        try {
            // scheduled before the instance registers: claimed by its first poll, not before (the
            // registration hands back what was claimed under its name before it)
            engine.tasks().schedule("mail", "k1", Duration.ZERO, null);
            heartbeat.poll(); // registers, claims the task, a worker runs it
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

            ticker.advance(lease.plusSeconds(1)); // frozen past the lease
            release.countDown(); // the worker wakes first and ends the run
            await().atMost(WAIT).until(() -> engine.completedCount() + engine.fencedCount() == 1);
            heartbeat.poll();

            assertThat(warnings.list)
                    .filteredOn(event -> event.getFormattedMessage().contains("longer than its lease"))
                    .singleElement()
                    .satisfies(event -> assertThat(event.getFormattedMessage()).contains("mail/k1"));
            assertThat(warnings.list)
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .noneMatch(message -> message.contains("Handed back"));

            warnings.list.clear();
            ticker.advance(lease.plusSeconds(1));
            heartbeat.poll();
            assertThat(warnings.list)
                    .filteredOn(event -> event.getFormattedMessage().contains("longer than its lease"))
                    .as("a later silence, after the task ended and a poll went through")
                    .singleElement()
                    .satisfies(event -> assertThat(event.getFormattedMessage()).doesNotContain("mail/k1"));
        } finally {
            logger.detachAppender(warnings);
            engineLogger.detachAppender(warnings);
        }
    }

    /** Bad input gets a clear error at schedule time. */
    @Test
    void shouldRejectBadInputClearly() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        DurableTaskEngine engine = start(database, "a", new RecordingHandler());
        DurableTasks tasks = engine.tasks();

        assertThatThrownBy(() -> tasks.schedule("nobody", "k", Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("No durable task handler named 'nobody'")
                .hasMessageContaining("mail");
        assertThatThrownBy(() -> tasks.schedule("mail", " ", Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> tasks.schedule("mail", null, Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> tasks.schedule("mail", "k", Duration.ZERO, List.of(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no JSON mapper");
        DurableTasks withJackson = DurableTaskEngine.builder(database)
                .instanceName("jackson")
                .handler("mail", new RecordingHandler())
                .codec(new JacksonPayloadCodec(JsonMapper.builder().build()))
                .build()
                .tasks();
        assertThatThrownBy(() -> withJackson.schedule("mail", "k", Duration.ZERO, new PayloadCodecTest.Unwritable()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Cannot write a " + PayloadCodecTest.Unwritable.class.getName());
        assertThat(tasks.find(DurableTaskQuery.all())).isEmpty();
    }

    /** A row for a handler this instance lacks is left alone for an instance that has it, with one warning. */
    @Test
    void shouldLeaveTasksOfUnknownHandlersForOtherInstances() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        DurableTaskEngine other = DurableTaskEngine.builder(database)
                .instanceName("other")
                .handler("sms", new RecordingHandler())
                .build();
        other.tasks().schedule("sms", "k", Duration.ZERO, null);
        Logger logger = (Logger) LoggerFactory.getLogger(DurableTaskPoll.class);
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        logger.addAppender(warnings);
        try {
            RecordingHandler handler = new RecordingHandler();
            DurableTaskEngine engine = start(database, "a", handler);
            engine.tasks().schedule("mail", "marker", Duration.ZERO, null);

            await().atMost(WAIT)
                    .until(() -> handler.runsOf("marker") == 1
                            && !foreignWarnings(warnings).isEmpty());
            engine.tasks().schedule("mail", "second-marker", Duration.ofMillis(200), null);
            await().atMost(WAIT).until(() -> handler.runsOf("second-marker") == 1);

            assertThat(foreignWarnings(warnings)).singleElement().satisfies(event -> {
                assertThat(event.getLevel()).isEqualTo(Level.WARN);
                assertThat(event.getFormattedMessage()).contains("'sms'").contains("left for an instance that has one");
            });
            assertThat(other.tasks().find("sms", "k").orElseThrow().state()).isEqualTo(DurableTaskState.PENDING);
        } finally {
            logger.detachAppender(warnings);
        }
    }

    private static List<ILoggingEvent> foreignWarnings(ListAppender<ILoggingEvent> appender) {
        return appender.list.stream()
                .filter(event -> event.getFormattedMessage().contains("no handler of that name"))
                .toList();
    }

    /** Test support: what is due now runs on the calling thread. */
    @Test
    void shouldRunWhatIsDueNowOnTheCallingThread() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = DurableTaskEngine.builder(database)
                .instanceName("test")
                .handler("mail", handler)
                .build();
        engine.tasks().schedule("mail", "now", Duration.ZERO, null);
        engine.tasks().schedule("mail", "later", Duration.ofHours(1), null);

        assertThat(DurableTaskTesting.runDueNow(engine)).isEqualTo(1);

        assertThat(handler.runs).containsOnlyKeys("now");
    }

    /** Test support: one task runs now on the calling thread, whatever its due time; an unknown one does not. */
    @Test
    void shouldRunOneTaskNowWhateverItsDueTime() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.newH2());
        RecordingHandler handler = new RecordingHandler();
        DurableTaskEngine engine = start(database, "a", handler);
        engine.tasks().schedule("mail", "tomorrow", Duration.ofDays(1), "later");

        assertThat(DurableTaskTesting.runNow(engine, "mail", "tomorrow")).isTrue();

        assertThat(handler.runsOf("tomorrow")).isEqualTo(1);
        assertThat(handler.tasks.get(0).payload()).isEqualTo("later");
        assertThat(engine.tasks().find("mail", "tomorrow")).isEmpty();
        assertThat(DurableTaskTesting.runNow(engine, "mail", "nothing")).isFalse();
    }

    /** A handler that runs in the completion's transaction writes its effect there, then runs a hook. */
    static final class EffectHandler implements DurableTaskHandler<String> {
        private final JdbcTemplate jdbc;
        private final String instance;
        private final Hook hook;

        interface Hook {
            void run() throws Exception;
        }

        EffectHandler(JdbcTemplate jdbc, String instance, Hook hook) {
            this.jdbc = jdbc;
            this.instance = instance;
            this.hook = hook;
        }

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) throws Exception {
            jdbc.update("INSERT INTO effects (task_id, instance) VALUES (?, ?)", task.id(), instance);
            hook.run();
        }

        @Override
        public boolean runsInCompletionTransaction() {
            return true;
        }
    }
}
