package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

class JdbcDialectTest {

    /** The dialect is read from the database's metadata. */
    @Test
    void shouldDetectPostgresqlAndH2() {
        assertThat(JdbcDialect.detect(TestDatabases.newPostgres())).isEqualTo(JdbcDialect.POSTGRESQL);
        assertThat(JdbcDialect.detect(TestDatabases.newH2())).isEqualTo(JdbcDialect.H2);
    }

    /** Another database fails with a message that names it and the ways out. */
    @Test
    void shouldRefuseAnUnsupportedDatabase() {
        assertThatIllegalStateException()
                .isThrownBy(() -> JdbcDialect.forProductName("Microsoft SQL Server"))
                .withMessageContaining("'Microsoft SQL Server'")
                .withMessageContaining("@TimedJobsDataSource")
                .withMessageContaining("timed-jobs.cluster.enabled=false");
    }

    /** Insert-if-absent inserts once and then reports 0 without an error, on both databases. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldInsertOnlyWhenAbsent(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE t (k VARCHAR(10) PRIMARY KEY, at " + instantColumn(kind) + ")");
        String insert = "INSERT INTO t (k, at) SELECT ?, ? WHERE ? > " + dialect.nowPlusMillis();
        Instant at = Instant.parse("2030-01-01T00:00:00.123456789Z");

        assertThat(dialect.insertIfAbsent(jdbc, insert, "a", dialect.bind(at), dialect.bind(at), -1000L))
                .isEqualTo(1);
        assertThat(dialect.insertIfAbsent(jdbc, insert, "a", dialect.bind(at), dialect.bind(at), -1000L))
                .isZero();
        Instant past = Instant.now().minusSeconds(60);
        assertThat(dialect.insertIfAbsent(jdbc, insert, "b", dialect.bind(past), dialect.bind(past), -1000L))
                .as("the condition is checked on the database clock")
                .isZero();
        Instant read = jdbc.queryForObject("SELECT at FROM t WHERE k = 'a'", (rs, n) -> dialect.readInstant(rs, "at"));
        assertThat(read).isEqualTo(Instant.parse("2030-01-01T00:00:00.123456Z"));
    }

    /** The database clock moves within a transaction and adds milliseconds as bound. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldReadTheDatabaseClockAndAddMillis(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        Instant now = dialect.currentTime(jdbc);
        assertThat(Duration.between(now, Instant.now()).abs()).isLessThan(Duration.ofSeconds(5));
        Instant later = jdbc.queryForObject(
                "SELECT " + dialect.nowPlusMillis(), (rs, n) -> dialect.readInstant(rs, 1), 3_600_000L);
        assertThat(Duration.between(now, later)).isBetween(Duration.ofMinutes(59), Duration.ofMinutes(61));
    }

    /** SKIP LOCKED parses on both databases. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldLockRowsSkippingLockedOnes(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE t (k VARCHAR(10) PRIMARY KEY)");
        jdbc.update("INSERT INTO t (k) VALUES ('a')");
        assertThat(jdbc.queryForList("SELECT k FROM t" + dialect.forUpdateSkipLocked(), String.class))
                .containsExactly("a");
    }

    /** The column type of instants on each database, as the schema scripts write it. */
    static String instantColumn(TestDatabases.Kind kind) {
        return kind == TestDatabases.Kind.MARIADB ? "DATETIME(6)" : "TIMESTAMP WITH TIME ZONE";
    }
}
