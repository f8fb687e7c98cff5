package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.SwitchableDataSource;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistorySettings;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.Scheduled;

/** A run whose end could not be written, the database gone as it ended, is in the history once it is back. */
class FatesUnwrittenEndTest {

    private static final Duration WAIT = TestDelays.scaled(Duration.ofSeconds(30));

    /** When set, the next run cuts it off the database as it ends, names its fire and counts this down. */
    static volatile @Nullable CountDownLatch cutAtEnd;

    static volatile @Nullable SwitchableDataSource cut;

    static volatile @Nullable Instant cutFire;

    private @Nullable ConfigurableApplicationContext instance;

    @AfterEach
    void close() {
        cutAtEnd = null;
        SwitchableDataSource link = cut;
        if (link != null) {
            link.up();
        }
        if (instance != null) {
            instance.close();
        }
    }

    /**
     * The database goes away as a run ends, so that the release of its lease and its record fail:
     * once the database is back, the run's record is written, once.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldWriteTheRecordOfARunWhoseEndFoundNoDatabaseOnceItIsBack(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        SwitchableDataSource link = new SwitchableDataSource(dataSource);
        cut = link;
        RunLog log = new RunLog();
        instance = TestInstance.start(
                link,
                "a",
                Duration.ZERO,
                TestInstance.Settings.shrunk().withZone(ZoneId.of("UTC")),
                RunHistorySettings.defaults(),
                log,
                CutAtEnd.class);
        ClusteredJobs jobs = instance.getBean(ClusteredJobs.class);
        String job = jobs.jobNames().get(0);
        await().atMost(WAIT).until(() -> log.count("tick") >= 1);
        long failures = jobs.outages().failureCount();

        CountDownLatch ended = new CountDownLatch(1);
        cutAtEnd = ended;
        assertThat(ended.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        // the release of the run's lease, with its record, found no database
        await().atMost(WAIT).until(() -> jobs.outages().failureCount() > failures);
        Instant fire = Objects.requireNonNull(cutFire);
        link.up();

        RunHistory history =
                new RunHistory(ClusterDatabase.of(dataSource, TableNames.defaults()), RunHistorySettings.defaults());
        await().atMost(WAIT).until(() -> history.fateAt(job, fire).known());
        List<RunRecord> covering = history.fateAt(job, fire).covering();
        assertThat(covering)
                .as("the record of the run whose end found no database")
                .singleElement()
                .satisfies(run -> {
                    assertThat(run.skipped()).isFalse();
                    assertThat(run.instance()).isEqualTo("a");
                });
    }

    /** A job every second; a run cuts the database off as it ends while {@link #cutAtEnd} is set. */
    static class CutAtEnd {
        private final RunLog log;
        private final String instance;

        CutAtEnd(RunLog log, String instanceName) {
            this.log = log;
            this.instance = instanceName;
        }

        @Scheduled(cron = "* * * * * *")
        void tick() {
            log.record("tick", instance, System.nanoTime());
            CountDownLatch ending = cutAtEnd;
            if (ending != null) {
                cutAtEnd = null;
                cutFire = ClusteredJobs.currentFire();
                Objects.requireNonNull(cut).down();
                ending.countDown();
            }
        }
    }
}
