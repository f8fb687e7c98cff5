package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.timedjobs.scheduler.jdbc.schema.SchemaInitializer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
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

    /**
     * A heartbeat hands the names of the live instances to their watcher on PostgreSQL, read by its
     * own statement (a dead one left out); where the heartbeat cannot carry the read, it reads none.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReadTheLiveInstancesWithTheHeartbeatWhereItCan(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        new SchemaInitializer(dataSource, dialect, TableNames.defaults()).initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        ClusterInstance instance =
                new ClusterInstance(jdbc, dialect, TableNames.defaults(), "one", Duration.ofSeconds(30));
        instance.register();
        new ClusterInstance(jdbc, dialect, TableNames.defaults(), "two", Duration.ofSeconds(30)).register();
        jdbc.update(
                "INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('old', "
                        + dialect.nowPlusMillis() + ", " + dialect.nowPlusMillis() + ")",
                -120_000L,
                -60_000L);
        java.util.concurrent.atomic.AtomicReference<List<String>> seen =
                new java.util.concurrent.atomic.AtomicReference<>();
        instance.watchLiveInstances(seen::set);
        DatabaseClock clock =
                new DatabaseClock(jdbc, dialect, java.time.Clock.systemUTC(), io.timedjobs.scheduler.Ticker.system());

        instance.beatMeasuring(clock);

        if (kind == TestDatabases.Kind.POSTGRESQL) {
            assertThat(instance.readsLiveInstances()).isTrue();
            assertThat(seen.get()).containsExactly("one", "two");
        } else {
            assertThat(instance.readsLiveInstances()).isFalse();
            assertThat(seen.get()).isNull();
        }
    }

    /**
     * A second process under a name whose row keeps beating (here: the holder beats while the
     * newcomer watches) refuses to start, naming the configuration key; the holder keeps its row.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldRefuseANameAnotherLiveProcessUses(TestDatabases.Kind kind) {
        JdbcTemplate jdbc = newDatabase(kind);
        JdbcDialect dialect = JdbcDialect.detect(jdbc.getDataSource());
        ClusterInstance holder =
                new ClusterInstance(jdbc, dialect, TableNames.defaults(), "web-1", Duration.ofSeconds(30));
        holder.register();
        Instant holderStart = startedAt(jdbc, "web-1");
        List<Duration> waits = new ArrayList<>();
        ClusterInstance newcomer = new ClusterInstance(
                jdbc, dialect, TableNames.defaults(), "web-1", Duration.ofSeconds(30), Duration.ofSeconds(1), wait -> {
                    waits.add(wait);
                    holder.heartbeat();
                });
        AtomicInteger started = new AtomicInteger();
        newcomer.addStartAction(started::incrementAndGet);

        assertThatThrownBy(newcomer::register)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("timed-jobs.cluster.instance-name")
                .hasMessageContaining("'web-1'");
        assertThat(waits).containsExactly(Duration.ofSeconds(1));
        assertThat(started).hasValue(0);
        assertThat(startedAt(jdbc, "web-1")).isEqualTo(holderStart);
    }

    /**
     * A row under the name whose heartbeat does not move for two poll intervals was left by a process
     * that died: it is taken over (a new start time) and the start actions run.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTakeOverTheRowOfAProcessThatDied(TestDatabases.Kind kind) {
        JdbcTemplate jdbc = newDatabase(kind);
        JdbcDialect dialect = JdbcDialect.detect(jdbc.getDataSource());
        new ClusterInstance(jdbc, dialect, TableNames.defaults(), "web-1", Duration.ofSeconds(30)).register();
        Instant crashedStart = startedAt(jdbc, "web-1");
        List<Duration> waits = new ArrayList<>();
        ClusterInstance restarted = new ClusterInstance(
                jdbc,
                dialect,
                TableNames.defaults(),
                "web-1",
                Duration.ofSeconds(30),
                Duration.ofSeconds(1),
                waits::add);
        AtomicInteger started = new AtomicInteger();
        restarted.addStartAction(started::incrementAndGet);

        restarted.register();

        assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
        assertThat(started).hasValue(1);
        assertThat(startedAt(jdbc, "web-1")).isAfter(crashedStart);
    }

    /**
     * Another instance stays while it is alive and not marked leaving; a dead one never stays; a
     * restart under a leaving instance's name clears its mark.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTellWhetherAnotherInstanceStays(TestDatabases.Kind kind) {
        JdbcTemplate jdbc = newDatabase(kind);
        JdbcDialect dialect = JdbcDialect.detect(jdbc.getDataSource());
        ClusterInstance one = new ClusterInstance(jdbc, dialect, TableNames.defaults(), "one", Duration.ofSeconds(30));
        ClusterInstance two = new ClusterInstance(
                jdbc, dialect, TableNames.defaults(), "two", Duration.ofSeconds(30), Duration.ofSeconds(1), wait -> {});
        one.register();
        assertThat(one.othersStaying()).as("alone").isFalse();
        jdbc.update(
                "INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('dead', "
                        + dialect.nowPlusMillis() + ", " + dialect.nowPlusMillis() + ")",
                -120_000L,
                -60_000L);
        assertThat(one.othersStaying()).as("beside a dead one").isFalse();
        two.register();
        assertThat(one.othersStaying()).isTrue();

        two.markLeaving();
        one.markLeaving();
        assertThat(one.othersStaying()).as("both leaving").isFalse();
        assertThat(two.othersStaying()).isFalse();

        // two's process dies in its stop and a new one takes the row over under the name
        new ClusterInstance(
                        jdbc,
                        dialect,
                        TableNames.defaults(),
                        "two",
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(1),
                        wait -> {})
                .register();
        assertThat(one.othersStaying()).as("restarted, no longer leaving").isTrue();
    }

    /** A row whose heartbeat is older than the lease is taken over without a wait. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldTakeOverAStaleRowAtOnce(TestDatabases.Kind kind) {
        JdbcTemplate jdbc = newDatabase(kind);
        JdbcDialect dialect = JdbcDialect.detect(jdbc.getDataSource());
        jdbc.update(
                "INSERT INTO timed_jobs_instances (instance_name, started_at, heartbeat_at) VALUES ('web-1', "
                        + dialect.nowPlusMillis() + ", " + dialect.nowPlusMillis() + ")",
                -120_000L,
                -60_000L);
        List<Duration> waits = new ArrayList<>();
        ClusterInstance restarted = new ClusterInstance(
                jdbc,
                dialect,
                TableNames.defaults(),
                "web-1",
                Duration.ofSeconds(30),
                Duration.ofSeconds(1),
                waits::add);

        restarted.register();

        assertThat(waits).isEmpty();
        assertThat(restarted.heartbeatOf("web-1")).isAfter(Instant.now().minusSeconds(30));
    }

    /**
     * A process that starts under a default name right after another process on the same host was
     * killed (its row still live for the lease) finds no row under its own name, and starts without
     * watching anything.
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldStartAtOnceUnderAFreshDefaultNameBesideTheLiveRowOfAKilledPredecessor(TestDatabases.Kind kind) {
        JdbcTemplate jdbc = newDatabase(kind);
        JdbcDialect dialect = JdbcDialect.detect(jdbc.getDataSource());
        long pid = ProcessHandle.current().pid();
        String predecessorName = ClusterInstance.defaultName().replace("-" + pid + "-", "-" + (pid + 1) + "-");
        new ClusterInstance(jdbc, dialect, TableNames.defaults(), predecessorName, Duration.ofSeconds(30)).register();
        List<Duration> waits = new ArrayList<>();
        String name = ClusterInstance.defaultName();
        ClusterInstance fresh = new ClusterInstance(
                jdbc, dialect, TableNames.defaults(), name, Duration.ofSeconds(30), Duration.ofSeconds(1), waits::add);

        fresh.register();

        assertThat(waits).isEmpty();
        assertThat(fresh.heartbeatOf(name)).isNotNull();
        assertThat(fresh.heartbeatOf(predecessorName)).isNotNull();
    }

    private static JdbcTemplate newDatabase(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        new SchemaInitializer(dataSource, dialect, TableNames.defaults()).initialize(SchemaInitializer.Mode.ALWAYS);
        return new JdbcTemplate(dataSource);
    }

    private static Instant startedAt(JdbcTemplate jdbc, String name) {
        return jdbc.queryForObject(
                        "SELECT started_at FROM timed_jobs_instances WHERE instance_name = ?",
                        java.time.OffsetDateTime.class,
                        name)
                .toInstant();
    }
}
