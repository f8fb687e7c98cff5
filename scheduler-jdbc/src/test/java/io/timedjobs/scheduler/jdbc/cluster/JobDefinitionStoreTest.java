package io.timedjobs.scheduler.jdbc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Definitions of a job at the SQL level, on both databases: the database records fires only under
 * the definition the row holds, whatever the instances do; and instances of schema version 1, which
 * know nothing of definitions, are fenced off through the paused flag they obey while they live.
 */
class JobDefinitionStoreTest {

    private static final Duration HORIZON = Duration.ofMinutes(1);
    private static final JobDefinition A = new JobDefinition("cron", "0 */3 * * * *", "UTC", Duration.ZERO);
    private static final JobDefinition B = new JobDefinition("cron", "0 */5 * * * *", "Asia/Tokyo", Duration.ZERO);

    private record Fixture(ClusterDatabase database, JdbcTemplate jdbc, JobStore a, JobStore b) {}

    private static Fixture fixture(TestDatabases.Kind kind) {
        DataSource dataSource = OncePerFireTest.createTables(kind);
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        ClusterInstance a = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "a", Duration.ofSeconds(30));
        ClusterInstance b = new ClusterInstance(
                database.jdbc(), database.dialect(), database.tables(), "b", Duration.ofSeconds(30));
        a.register();
        b.register();
        return new Fixture(database, database.jdbc(), new JobStore(database, a), new JobStore(database, b));
    }

    private static Instant now(Fixture f) {
        return f.database().dialect().currentTime(f.jdbc()).truncatedTo(ChronoUnit.SECONDS);
    }

    /**
     * A takeover is a compare-and-set on the definition read; after it the database refuses the
     * old definition's fires and fixed-delay claims, and keeps the job's pause.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRecordFiresOnlyUnderTheDefinitionTheRowHolds(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        JobStore.JobRow first = f.a().definitions().register("job", A, null, null);
        assertThat(first.definitionKey()).isEqualTo(A.key());
        JobStore.JobRow seenByB = f.b().definitions().register("job", B, null, null);
        assertThat(seenByB.definitionKey()).as("registering does not take over").isEqualTo(A.key());
        Instant fire = now(f);
        assertThat(f.b().recordFire("job", B.key(), fire, HORIZON)).isFalse();

        assertThat(f.b().definitions().takeOver("job", B, null, null, "some other key"))
                .as("stale read")
                .isFalse();
        assertThat(f.b().definitions().takeOver("job", B, null, null, A.key())).isTrue();
        JobStore.JobRow switched = f.a().read("job");
        assertThat(switched.definitionKey()).isEqualTo(B.key());
        assertThat(switched.schedule()).isEqualTo("0 */5 * * * *");
        assertThat(switched.timeZone()).isEqualTo("Asia/Tokyo");
        assertThat(switched.definedBy()).isEqualTo("b");
        assertThat(switched.fenced()).as("no version 1 instance is alive").isFalse();

        assertThat(f.a().recordFire("job", A.key(), fire.plusSeconds(1), HORIZON))
                .as("the old definition's fire")
                .isFalse();
        assertThat(f.b().recordFire("job", B.key(), fire.plusSeconds(1), HORIZON))
                .isTrue();

        assertThat(f.a().definitions().definition("job", A.key()).text()).isEqualTo(A.text());
        assertThat(f.a().definitions().definition("job", B.key()).firstSeenAt())
                .isAfterOrEqualTo(f.a().definitions().definition("job", A.key()).firstSeenAt());
        assertThat(f.a().definitions().liveCarriers("job", B.key()))
                .as("b carries B")
                .isOne();
        assertThat(f.b().definitions().liveCarriers("job", B.key()))
                .as("others than b")
                .isZero();

        assertThat(f.a().setPaused("job", true)).isTrue();
        assertThat(f.b().recordFire("job", B.key(), fire.plusSeconds(2), HORIZON))
                .as("paused")
                .isFalse();
        assertThat(f.a().isPaused("job")).isTrue();
        assertThat(f.a().pausedJobs()).containsExactly("job");
    }

    /**
     * While an instance of schema version 1 is alive, a changed definition fences it off: the fire
     * insert of version 1, verbatim, records nothing, while the job's own pause stays the user's;
     * once no such instance is alive, the fence lifts.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldFenceOffInstancesOfVersion1AfterADefinitionChange(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        JdbcDialect dialect = f.database().dialect();
        // What a version 1 instance wrote: its instance row (no schema version) and the job's row.
        f.jdbc()
                .update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('old', "
                        + dialect.now() + ", " + dialect.now() + ")");
        f.jdbc()
                .update(
                        "INSERT INTO timed_jobs_jobs (job_name, kind, schedule, time_zone, anchor_at, next_fire_at,"
                                + " created_at) VALUES ('job', 'cron', ?, 'UTC', NULL, NULL, " + dialect.now() + ")",
                        A.schedule());
        Instant fire = now(f);
        assertThat(version1RecordsFire(f, fire)).as("before the change").isTrue();

        JobStore.JobRow row = f.b().definitions().register("job", B, null, null);
        assertThat(row.definitionKey()).isNull();
        assertThat(f.b().definitions().takeOver("job", B, null, null, null)).isTrue();
        assertThat(f.b().read("job").fenced()).isTrue();
        assertThat(f.b().read("job").paused())
                .as("the job itself is not paused")
                .isFalse();
        assertThat(version1RecordsFire(f, fire.plusSeconds(1))).as("fenced off").isFalse();
        assertThat(f.b().recordFire("job", B.key(), fire.plusSeconds(1), HORIZON))
                .isTrue();

        f.b().setPaused("job", true);
        f.b().setPaused("job", false);
        assertThat(version1RecordsFire(f, fire.plusSeconds(2)))
                .as("a resume keeps the fence")
                .isFalse();
        assertThat(f.b().definitions().liftFence("job")).as("'old' is alive").isFalse();

        f.jdbc()
                .update(
                        "UPDATE timed_jobs_instances SET heartbeat_at = ? WHERE instance_name = 'old'",
                        f.database().dialect().bind(now(f).minusSeconds(60)));
        assertThat(f.b().definitions().liftFence("job")).isTrue();
        JobStore.JobRow lifted = f.b().read("job");
        assertThat(lifted.fenced()).isFalse();
        assertThat(lifted.paused()).isFalse();
        assertThat(f.jdbc().queryForObject("SELECT paused FROM timed_jobs_jobs", Boolean.class))
                .isFalse();
    }

    /** A version 1 row holding the same definition is adopted, not fenced: version 1 instances keep sharing it. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldAdoptAVersion1RowOfTheSameDefinition(TestDatabases.Kind kind) {
        Fixture f = fixture(kind);
        JdbcDialect dialect = f.database().dialect();
        f.jdbc()
                .update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('old', "
                        + dialect.now() + ", " + dialect.now() + ")");
        f.jdbc()
                .update(
                        "INSERT INTO timed_jobs_jobs (job_name, kind, schedule, time_zone, anchor_at, next_fire_at,"
                                + " created_at, paused) VALUES ('job', 'cron', ?, 'UTC', NULL, NULL, " + dialect.now()
                                + ", TRUE)",
                        A.schedule());

        assertThat(f.a().definitions().adopt("job", B)).as("another definition").isFalse();
        assertThat(f.a().definitions().adopt("job", A)).isTrue();
        JobStore.JobRow adopted = f.a().read("job");
        assertThat(adopted.definitionKey()).isEqualTo(A.key());
        assertThat(adopted.paused()).as("the pause of version 1 is kept").isTrue();
        f.a().setPaused("job", false);
        Instant fire = now(f);
        assertThat(version1RecordsFire(f, fire)).isTrue();
        assertThat(f.a().recordFire("job", A.key(), fire, HORIZON))
                .as("recorded once")
                .isFalse();
        assertThat(f.a().recordFire("job", A.key(), fire.plusSeconds(1), HORIZON))
                .isTrue();
    }

    /** The fire insert of schema version 1, as its instances run it. */
    private static boolean version1RecordsFire(Fixture f, Instant fire) {
        JdbcDialect dialect = f.database().dialect();
        String now = dialect.now();
        String nowPlus = dialect.nowPlusMillis();
        String insert = "INSERT INTO timed_jobs_fires (job_name, fire_at, instance_name, recorded_at)"
                + " SELECT " + dialect.textParameter(300) + ", " + dialect.instantParameter() + ", "
                + dialect.textParameter(200) + ", " + now + " WHERE " + dialect.instantParameter() + " > " + nowPlus
                + " AND " + dialect.instantParameter() + " < " + nowPlus
                + " AND NOT EXISTS (SELECT 1 FROM timed_jobs_jobs WHERE job_name = ? AND paused)";
        Object at = dialect.bind(fire);
        long horizon = HORIZON.toMillis();
        return dialect.insertIfAbsent(f.jdbc(), insert, "job", at, "old", at, -horizon, at, horizon, "job") == 1;
    }
}
