package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A process frozen inside a poll of the heartbeat, its beat included, resumes there; the run it
 * held ends at once and gives its lease up before that poll's actions end. The next poll's silence
 * warning still names that lease. Simulated time: a manual ticker, polls called by the test, the
 * freeze taken at the beat's connection.
 */
class FrozenInsidePollTest {

    private static final Duration POLL = Duration.ofSeconds(1);
    private static final Duration LEASE = Duration.ofSeconds(30);

    /** The lease given up as the process resumes inside the beat is named by the next poll's warning. */
    @Test
    void shouldNameALeaseGivenUpAsTheProcessResumesInsideTheBeat() {
        ManualTicker ticker = new ManualTicker();
        FreezingDataSource database = new FreezingDataSource(TestDatabases.newH2());
        ClusterDatabase cluster = ClusterDatabase.of(database, TableNames.defaults());
        new SchemaInitializer(cluster).initialize(SchemaInitializer.Mode.ALWAYS);
        DatabaseClock clock = new DatabaseClock(cluster.jdbc(), cluster.dialect(), Clock.systemUTC(), ticker);
        ClusterInstance instance = new ClusterInstance(
                cluster.jdbc(),
                cluster.dialect(),
                cluster.tables(),
                "frozen",
                LEASE,
                LeaseRule.beatInterval(LEASE, POLL),
                duration -> {});
        ClusterHeartbeat heartbeat = new ClusterHeartbeat(
                instance, clock, new OutageLog(FrozenInsidePollTest.class, "frozen"), POLL, ticker);
        HeldLeases held = new HeldLeases();
        heartbeat.addPollStartAction(held::pollBegins);
        heartbeat.addPollAction(held::polled);
        heartbeat.addHoldings(() -> {
            List<String> jobs = held.heldSinceLastPoll();
            return jobs.isEmpty() ? "" : "the run lease of job(s) " + jobs;
        });
        heartbeat.poll(); // registers
        held.took("job");
        Logger logger = (Logger) LoggerFactory.getLogger(ClusterHeartbeat.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            ticker.advance(LeaseRule.beatInterval(LEASE, POLL));
            database.freezeAtNextConnection(() -> {
                ticker.advance(LEASE.plusSeconds(1));
                held.released("job"); // the run held through the freeze ends as the process resumes
            });
            heartbeat.poll(); // its beat: frozen inside it
            ticker.advance(POLL);
            heartbeat.poll(); // finds the silence
        } finally {
            logger.detachAppender(events);
        }

        assertThat(events.list)
                .map(ILoggingEvent::getFormattedMessage)
                .filteredOn(message -> message.contains("had no heartbeat through"))
                .singleElement()
                .asString()
                .contains("the run lease of job(s) [job]");
    }

    /** Runs a given action once, as the next connection is asked for: where the process freezes. */
    private static final class FreezingDataSource extends DelegatingDataSource {
        private final AtomicReference<@Nullable Runnable> freeze = new AtomicReference<>();

        FreezingDataSource(DataSource target) {
            super(target);
        }

        void freezeAtNextConnection(Runnable action) {
            freeze.set(action);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Runnable action = freeze.getAndSet(null);
            if (action != null) {
                action.run();
            }
            return super.getConnection();
        }
    }
}
