package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Durable input checked where it enters: payloads of the wrong type refused at schedule time, keys
 * counted in characters, last_error holding the error and never the payload, and one log line per
 * failed attempt.
 */
class DurableInputTest {

    record Reminder(String who, String text) {}

    /** A handler of {@link Reminder} payloads that records them, or fails every time when told to. */
    static final class ReminderHandler implements DurableTaskHandler<Reminder> {
        final List<Reminder> payloads = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final boolean failing;

        ReminderHandler(boolean failing) {
            this.failing = failing;
        }

        @Override
        public Class<Reminder> payloadType() {
            return Reminder.class;
        }

        @Override
        public void handle(DurableTask<Reminder> task) {
            if (failing) {
                throw new IllegalStateException("mail server said no to attempt " + task.attempt());
            }
            payloads.add(task.payload());
        }
    }

    private static DurableTaskEngine engine(ClusterDatabase database, DurableTaskHandler<?> handler) {
        return DurableTaskEngine.builder(database)
                .instanceName("input")
                .handler("reminders", handler)
                .codec(new JacksonPayloadCodec(JsonMapper.builder().build()))
                .settings(DurableTestSupport.fastSettings())
                .build();
    }

    /**
     * A payload that is not the handler's type (an Integer, a Map, an Object, a Thread), or a String
     * that is not JSON of it, is refused before anything is written, naming the task, the declared
     * and the given type; a Reminder, or JSON of one, is accepted and runs.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefusePayloadsTheHandlerCannotReadBack(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        ReminderHandler handler = new ReminderHandler(false);
        DurableTasks tasks = engine(database, handler).tasks();

        for (Object wrong : List.of(42, Map.of("who", "ada"), new Object(), new Thread(() -> {}))) {
            assertThatThrownBy(() -> tasks.schedule("reminders", "k", Duration.ZERO, wrong))
                    .as("%s", wrong.getClass())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reminders/k")
                    .hasMessageContaining(Reminder.class.getName())
                    .hasMessageContaining(wrong.getClass().getName());
        }
        assertThatThrownBy(() -> tasks.schedule("reminders", "k", Duration.ZERO, "not json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reminders/k")
                .hasMessageContaining(Reminder.class.getName())
                .hasMessageContaining(String.class.getName());
        assertThat(tasks.find(DurableTaskQuery.all())).isEmpty();

        tasks.schedule("reminders", "record", Duration.ZERO, new Reminder("ada", "tea"));
        tasks.schedule("reminders", "json", Duration.ZERO, "{\"who\":\"bob\",\"text\":\"coffee\"}");
        DurableTaskTesting.runDueNow(engine(database, handler));
        assertThat(handler.payloads)
                .containsExactlyInAnyOrder(new Reminder("ada", "tea"), new Reminder("bob", "coffee"));
    }

    /**
     * A null payload for a handler of records is refused at schedule time, naming the task, the
     * handler and the opt-in, and nothing is written; a handler that opts in gets its task run with
     * null, and a String handler accepts null as before.
     */
    @Test
    void shouldRefuseANullPayloadUnlessTheHandlerAcceptsOne() {
        ClusterDatabase database = DurableTestSupport.database(TestDatabases.Kind.H2.newDatabase());
        DurableTasks tasks = engine(database, new ReminderHandler(false)).tasks();

        assertThatThrownBy(() -> tasks.schedule("reminders", "k", Duration.ZERO, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reminders/k")
                .hasMessageContaining("handler 'reminders'")
                .hasMessageContaining(Reminder.class.getName())
                .hasMessageContaining("acceptsNullPayload()");
        assertThatThrownBy(() ->
                        tasks.scheduleRecurring("reminders", "every", DurableSchedule.every(Duration.ofHours(1)), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reminders/every");
        assertThat(tasks.find(DurableTaskQuery.all())).isEmpty();

        List<Reminder> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger runs = new AtomicInteger();
        DurableTaskHandler<Reminder> optional = new DurableTaskHandler<>() {
            @Override
            public Class<Reminder> payloadType() {
                return Reminder.class;
            }

            @Override
            public boolean acceptsNullPayload() {
                return true;
            }

            @Override
            public void handle(DurableTask<Reminder> task) {
                if (task.payload() != null) {
                    seen.add(task.payload());
                }
                runs.incrementAndGet();
            }
        };
        DurableTaskEngine accepting = engine(database, optional);
        accepting.tasks().schedule("reminders", "none", Duration.ZERO, null);
        DurableTaskTesting.runDueNow(accepting);
        assertThat(runs).hasValue(1);
        assertThat(seen).isEmpty();

        RecordingHandler strings = new RecordingHandler();
        assertThat(strings.acceptsNullPayload()).isTrue();
    }

    /** A reschedule of a task whose stored payload does not read as the handler's type is refused. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefuseToRescheduleAPayloadTheHandlerCannotRead(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTasks tasks = engine(database, new ReminderHandler(false)).tasks();
        Instant due = Instant.now().plusSeconds(60);
        // written unchecked, as an instance without the handler (or an older version) would
        new DurableTaskStore(database).upsert("reminders", "k", "[1, 2]", null, due);

        assertThatThrownBy(() -> tasks.reschedule("reminders", "k", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reminders/k")
                .hasMessageContaining(Reminder.class.getName());
        assertThat(tasks.find("reminders", "k").orElseThrow().dueAt())
                .isEqualTo(due.truncatedTo(java.time.temporal.ChronoUnit.MICROS));
    }

    /** The key limit counts characters: 200 emoji (400 UTF-16 units) are accepted and stored whole, 201 are not. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCountTheKeyLimitInCharacters(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTasks tasks = engine(database, new ReminderHandler(false)).tasks();
        String emoji = "\uD83D\uDE00";

        tasks.schedule("reminders", emoji.repeat(200), Duration.ofHours(1), new Reminder("ada", "tea"));

        assertThat(tasks.find("reminders", emoji.repeat(200))).isPresent();
        assertThatThrownBy(() ->
                        tasks.schedule("reminders", emoji.repeat(201), Duration.ofHours(1), new Reminder("ada", "tea")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 200 characters, got 201");
    }

    /**
     * A stored payload that does not read as the handler's type fails with "payload could not be read
     * as", and last_error holds that error, never the payload; one line per attempt is logged without a
     * stack trace, and one stack trace when the task gives up.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepTheErrorNotThePayloadAndLogOneLinePerAttempt(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTaskEngine engine = engine(database, new ReminderHandler(false));
        new DurableTaskStore(database).upsert("reminders", "k", "\"SECRET-PAYLOAD\"", null, Instant.now());
        Logger logger = (Logger) LoggerFactory.getLogger(DurableTaskRunner.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            AtomicInteger ran = new AtomicInteger();
            await().atMost(TestDelays.LONG).pollInterval(Duration.ofMillis(20)).until(() -> {
                ran.addAndGet(DurableTaskTesting.runDueNow(engine));
                return engine.tasks().find("reminders", "k").orElseThrow().state() == DurableTaskState.FAILED;
            });
        } finally {
            logger.detachAppender(events);
        }
        DurableTaskInfo failed = engine.tasks().find("reminders", "k").orElseThrow();
        assertThat(failed.lastError())
                .contains("payload could not be read as " + Reminder.class.getName() + ": ")
                .doesNotContain("SECRET");
        List<ILoggingEvent> failures = events.list.stream()
                .filter(event -> event.getFormattedMessage().contains("reminders/k"))
                .toList();
        assertThat(failures).hasSize(3);
        assertThat(failures.subList(0, 2)).allSatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getThrowableProxy()).isNull();
            assertThat(event.getFormattedMessage()).doesNotContain("SECRET");
        });
        assertThat(failures.get(2).getLevel()).isEqualTo(Level.ERROR);
        assertThat(failures.get(2).getThrowableProxy()).isNotNull();
        assertThat(failures.get(2).getFormattedMessage()).contains("FAILED");
    }

    /** A handler's own error lands in last_error as class and message. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepTheHandlersErrorInLastError(TestDatabases.Kind kind) {
        ClusterDatabase database = DurableTestSupport.database(kind.newDatabase());
        DurableTaskEngine engine = engine(database, new ReminderHandler(true));
        engine.tasks().schedule("reminders", "k", Duration.ZERO, new Reminder("ada", "SECRET-TEXT"));

        await().atMost(TestDelays.LONG).pollInterval(Duration.ofMillis(20)).until(() -> {
            DurableTaskTesting.runDueNow(engine);
            return engine.tasks().find("reminders", "k").orElseThrow().state() == DurableTaskState.FAILED;
        });

        assertThat(engine.tasks().find("reminders", "k").orElseThrow().lastError())
                .isEqualTo("java.lang.IllegalStateException: mail server said no to attempt 3");
    }
}
