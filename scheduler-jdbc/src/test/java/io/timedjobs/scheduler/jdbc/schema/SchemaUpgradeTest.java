package io.timedjobs.scheduler.jdbc.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * Upgrading a database that a release of schema version 1 created and filled: the initializer
 * records it at version 1, runs the later scripts, and nothing of what it held is lost.
 */
class SchemaUpgradeTest {

    /** Pending and claimed durable tasks, job rows of each kind and fires survive the upgrade to the current version. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldUpgradeAVersion1DatabaseWithNothingLost(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        JdbcDialect dialect = database.dialect();
        SchemaMigration migration = new SchemaMigration(dialect, database.tables());
        try (Connection connection = dataSource.getConnection()) {
            ScriptUtils.executeSqlScript(
                    connection,
                    new ByteArrayResource(migration.script("V1__timed_jobs.sql").getBytes(StandardCharsets.UTF_8)));
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String now = dialect.now();
        jdbc.update("INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('old', " + now
                + ", " + now + ")");
        jdbc.update("INSERT INTO timed_jobs_jobs (job_name, kind, schedule, time_zone, anchor_at, next_fire_at,"
                + " lease_owner, lease_until, paused, created_at) VALUES"
                + " ('cron', 'cron', '0 * * * * *', 'UTC', NULL, NULL, NULL, NULL, FALSE, " + now + "),"
                + " ('rate', 'fixed-rate', 'PT1M', NULL, " + now + ", NULL, NULL, NULL, TRUE, " + now + "),"
                + " ('delay', 'fixed-delay', 'PT5S', NULL, NULL, NULL, 'old', " + now + ", FALSE, " + now + ")");
        jdbc.update("INSERT INTO timed_jobs_fires (job_name, fire_at, instance_name, recorded_at) VALUES" + " ('cron', "
                + now + ", 'old', " + now + ")");
        jdbc.update("INSERT INTO timed_jobs_tasks (handler, task_key, payload, schedule, fire_at, due_at, state,"
                + " attempts, claimed_by, claim_version, lease_until, created_at) VALUES"
                + " ('mail', 'k1', '{\"to\":\"a\"}', NULL, " + now + ", " + now + ", 'PENDING', 0, NULL, 0, NULL, "
                + now + "),"
                + " ('mail', 'k2', 'text', '0 0 * * * *', " + now + ", " + now + ", 'CLAIMED', 1, 'old', 3, " + now
                + ", " + now + ")");
        List<Map<String, Object>> jobsBefore = rows(jdbc, "timed_jobs_jobs", "job_name");
        List<Map<String, Object>> tasksBefore = rows(jdbc, "timed_jobs_tasks", "task_key");
        List<Map<String, Object>> firesBefore = rows(jdbc, "timed_jobs_fires", "job_name");
        List<Map<String, Object>> instancesBefore = rows(jdbc, "timed_jobs_instances", "instance_name");

        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);

        assertThat(jdbc.queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(allVersions());
        assertThat(jdbc.queryForObject("SELECT script FROM timed_jobs_schema_version WHERE version = 1", String.class))
                .contains("found in place");
        assertThat(project(rows(jdbc, "timed_jobs_jobs", "job_name"), jobsBefore))
                .isEqualTo(jobsBefore);
        assertThat(project(rows(jdbc, "timed_jobs_tasks", "task_key"), tasksBefore))
                .isEqualTo(tasksBefore);
        assertThat(rows(jdbc, "timed_jobs_fires", "job_name")).isEqualTo(firesBefore);
        assertThat(project(rows(jdbc, "timed_jobs_instances", "instance_name"), instancesBefore))
                .isEqualTo(instancesBefore);
        assertThat(jdbc.queryForList("SELECT definition_key FROM timed_jobs_jobs", String.class))
                .as("keys come with the first version 2 instance")
                .containsOnlyNulls();
        assertThat(jdbc.queryForList("SELECT fenced FROM timed_jobs_jobs", Boolean.class))
                .containsOnly(false);
        assertThat(jdbc.queryForList("SELECT trace_parent FROM timed_jobs_tasks", String.class))
                .as("tasks scheduled before version 3 carry no trace context")
                .containsOnlyNulls();

        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.NEVER);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_schema_version", Integer.class))
                .as("a current schema runs nothing again")
                .isEqualTo(SchemaMigration.CURRENT);
    }

    /**
     * A database at version 2 (the run history's table missing) gains it, with its indexes, and
     * what it held stays; a second start runs nothing.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldUpgradeAVersion2DatabaseToTheRunHistory(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(database.dialect(), database.tables());
        try (Connection connection = dataSource.getConnection()) {
            for (String script : List.of("schema_version.sql", "V1__timed_jobs.sql", "V2__job_definitions.sql")) {
                ScriptUtils.executeSqlScript(
                        connection,
                        new ByteArrayResource(migration.script(script).getBytes(StandardCharsets.UTF_8)));
            }
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String now = database.dialect().now();
        jdbc.update("INSERT INTO timed_jobs_schema_version (version, script, applied_at, applied_by) VALUES"
                + " (1, 'V1__timed_jobs.sql', " + now + ", 'test'), (2, 'V2__job_definitions.sql', " + now
                + ", 'test')");
        jdbc.update("INSERT INTO timed_jobs_fires (job_name, fire_at, instance_name, recorded_at) VALUES ('cron', "
                + now + ", 'old', " + now + ")");
        List<Map<String, Object>> firesBefore = rows(jdbc, "timed_jobs_fires", "job_name");

        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);

        assertThat(jdbc.queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(allVersions());
        assertThat(rows(jdbc, "timed_jobs_fires", "job_name")).isEqualTo(firesBefore);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_run_history", Integer.class))
                .isZero();
        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_schema_version", Integer.class))
                .isEqualTo(SchemaMigration.CURRENT);
    }

    /**
     * A database at version 5 with runs in its history gains version 6's columns: its records read
     * as one run of one fire, and an instance of version 5 still inserts its records as it did.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldUpgradeAVersion5HistoryAndLetVersion5InstancesWriteBesideIt(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(database.dialect(), database.tables());
        List<String> version5 = SchemaMigration.SCRIPTS.subList(0, 5);
        try (Connection connection = dataSource.getConnection()) {
            ScriptUtils.executeSqlScript(
                    connection,
                    new ByteArrayResource(migration.script("schema_version.sql").getBytes(StandardCharsets.UTF_8)));
            for (String script : version5) {
                ScriptUtils.executeSqlScript(
                        connection,
                        new ByteArrayResource(migration.script(script).getBytes(StandardCharsets.UTF_8)));
            }
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String now = database.dialect().now();
        for (int version = 1; version <= 5; version++) {
            jdbc.update(
                    "INSERT INTO timed_jobs_schema_version (version, script, applied_at, applied_by) VALUES (?, ?, "
                            + now + ", 'test')",
                    version,
                    version5.get(version - 1));
        }
        String version5Insert = "INSERT INTO timed_jobs_run_history (kind, name, task_key, fire_at, instance_name,"
                + " started_at, duration_ms, outcome, attempt, error) VALUES ('JOB', 'job', NULL, " + now
                + ", 'old', " + now + ", 5, 'FAILED', 1, 'java.lang.IllegalStateException: boom')";
        jdbc.update(version5Insert);

        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);

        assertThat(jdbc.queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(allVersions());
        jdbc.update(version5Insert);
        List<Map<String, Object>> records = rows(jdbc, "timed_jobs_run_history", "id");
        assertThat(records).hasSize(2).allSatisfy(record -> {
            assertThat(((Number) record.get("fires")).longValue()).isOne();
            assertThat(record.get("skip_reason")).isNull();
            assertThat(record.get("fire_until")).isNull();
            assertThat(record.get("stack_trace")).isNull();
            assertThat(record.get("catch_up")).isIn(false, 0, (byte) 0, (short) 0);
        });
    }

    /**
     * A database at version 6 with a live instance of version 6 gains version 7's mark of a leaving
     * instance: the row reads as staying, and an instance of version 6 still registers as it did.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldUpgradeVersion6InstancesAndLetVersion6InstancesRegisterBesideThem(TestDatabases.Kind kind)
            throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(database.dialect(), database.tables());
        List<String> version6 = SchemaMigration.SCRIPTS.subList(0, 6);
        try (Connection connection = dataSource.getConnection()) {
            ScriptUtils.executeSqlScript(
                    connection,
                    new ByteArrayResource(migration.script("schema_version.sql").getBytes(StandardCharsets.UTF_8)));
            for (String script : version6) {
                ScriptUtils.executeSqlScript(
                        connection,
                        new ByteArrayResource(migration.script(script).getBytes(StandardCharsets.UTF_8)));
            }
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String now = database.dialect().now();
        for (int version = 1; version <= 6; version++) {
            jdbc.update(
                    "INSERT INTO timed_jobs_schema_version (version, script, applied_at, applied_by) VALUES (?, ?, "
                            + now + ", 'test')",
                    version,
                    version6.get(version - 1));
        }
        String version6Register = "INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at,"
                + " schema_version) VALUES (?, " + now + ", " + now + ", 6)";
        jdbc.update(version6Register, "old-1");

        new SchemaInitializer(database).initialize(SchemaInitializer.Mode.ALWAYS);

        assertThat(jdbc.queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(allVersions());
        jdbc.update(version6Register, "old-2");
        assertThat(rows(jdbc, "timed_jobs_instances", "instance_name"))
                .hasSize(2)
                .allSatisfy(row -> assertThat(row.get("leaving")).isIn(false, 0, (byte) 0, (short) 0));
    }

    /**
     * With {@code initialize-schema=never}, tables left at version 6 fail start-up naming version 7's
     * column, instead of starting with stops that cannot mark their instance leaving.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefuseTablesLeftAtVersion6WhenNeverInitializing(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(database.dialect(), database.tables());
        try (Connection connection = dataSource.getConnection()) {
            for (String script : SchemaMigration.SCRIPTS.subList(0, 6)) {
                ScriptUtils.executeSqlScript(
                        connection,
                        new ByteArrayResource(migration.script(script).getBytes(StandardCharsets.UTF_8)));
            }
        }
        SchemaInitializer initializer = new SchemaInitializer(dataSource, database.dialect(), database.tables());

        org.assertj.core.api.Assertions.assertThatIllegalStateException()
                .isThrownBy(() -> initializer.initialize(SchemaInitializer.Mode.NEVER))
                .withMessageContaining("timed_jobs_instances")
                .withMessageContaining("leaving");
    }

    /**
     * With {@code initialize-schema=never}, tables left at version 5 (a migration tool given the
     * scripts up to V5 only) fail start-up naming a column of version 6, instead of starting with a
     * history that cannot record a fire's fate.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefuseTablesLeftAtVersion5WhenNeverInitializing(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(database.dialect(), database.tables());
        try (Connection connection = dataSource.getConnection()) {
            for (String script : SchemaMigration.SCRIPTS.subList(0, 5)) {
                ScriptUtils.executeSqlScript(
                        connection,
                        new ByteArrayResource(migration.script(script).getBytes(StandardCharsets.UTF_8)));
            }
        }
        SchemaInitializer initializer = new SchemaInitializer(dataSource, database.dialect(), database.tables());

        org.assertj.core.api.Assertions.assertThatIllegalStateException()
                .isThrownBy(() -> initializer.initialize(SchemaInitializer.Mode.NEVER))
                .withMessageContaining("timed_jobs_run_history")
                .withMessageContaining("skip_reason");
    }

    /** Every version from 1 to the current one, in order. */
    private static List<Integer> allVersions() {
        return IntStream.rangeClosed(1, SchemaMigration.CURRENT).boxed().toList();
    }

    private static List<Map<String, Object>> rows(JdbcTemplate jdbc, String table, String orderBy) {
        return jdbc.queryForList("SELECT * FROM " + table + " ORDER BY " + orderBy).stream()
                .map(row -> {
                    Map<String, Object> lower = new TreeMap<>();
                    row.forEach((column, value) -> lower.put(column.toLowerCase(Locale.ROOT), value));
                    return (Map<String, Object>) lower;
                })
                .toList();
    }

    /** The rows cut to the columns that {@code before} has: what version 1 held. */
    private static List<Map<String, Object>> project(
            List<Map<String, Object>> after, List<Map<String, Object>> before) {
        return after.stream()
                .map(row -> {
                    Map<String, Object> kept = new TreeMap<>(row);
                    kept.keySet().retainAll(before.get(0).keySet());
                    return (Map<String, Object>) kept;
                })
                .toList();
    }
}
