package io.timedjobs.scheduler.jdbc.history;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** The skips of a claimed reason once their open record is gone from the table. */
class SkipRecordsTest {

    private static final Instant FIRE = Instant.parse("2026-01-01T10:00:00Z");

    /** A job firing every second. */
    private static final UnaryOperator<@Nullable Instant> EVERY_SECOND =
            fire -> fire == null ? null : fire.plusSeconds(1);

    /**
     * A paused job's open record pruned mid-pause: each paused fire after it is still covered by
     * exactly one record, written at once by the instance that claimed it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordEveryClaimedFireAfterItsOpenRecordWasPruned(TestDatabases.Kind kind) {
        ClusterDatabase database = ClusterDatabase.of(kind.newDatabase(), TableNames.defaults());
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        RunHistory history = new RunHistory(database, RunHistorySettings.defaults());
        for (int second = 0; second < 5; second++) {
            assertThat(history.recordSkip(skip(second), EVERY_SECOND)).isTrue();
        }
        new JdbcTemplate(database.dataSource())
                .update("DELETE FROM " + database.tables().runHistory());

        for (int second = 5; second < 20; second++) {
            assertThat(history.recordSkip(skip(second), EVERY_SECOND))
                    .as("fire %s written", second)
                    .isTrue();
        }

        List<RunRecord> records = history.find(RunHistoryQuery.all().job("report"));
        for (int second = 5; second < 20; second++) {
            Instant at = FIRE.plusSeconds(second);
            assertThat(records.stream().filter(record -> record.covers(at)).count())
                    .as("records covering fire %s", second)
                    .isEqualTo(1);
        }
    }

    private static SkippedFires skip(int second) {
        return SkippedFires.one("report", FIRE.plusSeconds(second), SkipReason.PAUSED, "a");
    }
}
