package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

class ClusterInstanceTest {

    /** Default names differ even within one JVM, and carry the process id. */
    @Test
    void shouldGiveUniqueDefaultNames() {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            names.add(ClusterInstance.defaultName());
        }
        assertThat(names).hasSizeGreaterThan(45);
        assertThat(names.iterator().next())
                .contains("-" + ProcessHandle.current().pid() + "-");
    }

    /** Register writes the row, heartbeat renews it (and writes it again if pruned), deregister removes it. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldKeepItsRowFromStartToShutdown(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        new SchemaInitializer(dataSource, dialect, TableNames.defaults()).initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        ClusterInstance instance =
                new ClusterInstance(jdbc, dialect, TableNames.defaults(), "one", Duration.ofSeconds(30));

        instance.register();
        assertThat(instance.heartbeatOf("one")).isNotNull();
        instance.register();
        jdbc.update("DELETE FROM timed_jobs_instances");
        instance.heartbeat();
        assertThat(instance.heartbeatOf("one")).isNotNull();
        instance.deregister();
        assertThat(instance.heartbeatOf("one")).isNull();
    }

    /** An instance is dead without a row or with a heartbeat older than the lease; alive otherwise. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTellDeadInstancesFromLiveOnes(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        new SchemaInitializer(dataSource, dialect, TableNames.defaults()).initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        ClusterInstance instance =
                new ClusterInstance(jdbc, dialect, TableNames.defaults(), "one", Duration.ofSeconds(30));
        instance.register();
        jdbc.update(
                "INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('old', "
                        + dialect.nowPlusMillis() + ", " + dialect.nowPlusMillis() + ")",
                -120_000L,
                -60_000L);

        String query = "SELECT COUNT(*) FROM (SELECT 'one' AS owner UNION ALL SELECT 'old' UNION ALL SELECT 'gone') o"
                + " WHERE " + instance.sql().isDead("o.owner");
        assertThat(jdbc.queryForObject(query, Integer.class, instance.deadAfterMillisParameter()))
                .isEqualTo(2);
    }
}
