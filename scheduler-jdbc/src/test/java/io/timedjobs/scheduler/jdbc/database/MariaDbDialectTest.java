package io.timedjobs.scheduler.jdbc.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.LoggedWarnings;
import io.timedjobs.scheduler.testsupport.MariaDbServer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.TimeZone;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * MariaDB and MySQL: which servers are accepted, and that no time zone moves an instant. The server
 * runs at {@link MariaDbServer#SERVER_ZONE}; the sessions keep its zone or set another, and the JVM
 * runs in a third.
 */
class MariaDbDialectTest {

    /** Both product names are one dialect; versions without SKIP LOCKED are refused with the reason. */
    @Test
    void shouldAcceptMariaDb106AndMySql801AndRefuseOlder() {
        assertThat(JdbcDialect.forProductName("MariaDB")).isEqualTo(JdbcDialect.MARIADB);
        assertThat(JdbcDialect.forProductName("MySQL")).isEqualTo(JdbcDialect.MARIADB);

        JdbcDialect.MARIADB.checkVersion("MariaDB", "10.6.0-MariaDB");
        JdbcDialect.MARIADB.checkVersion("MariaDB", "10.11.6-MariaDB-0+deb12u1");
        JdbcDialect.MARIADB.checkVersion("MySQL", "5.5.5-10.11.6-MariaDB-0+deb12u1"); // MySQL Connector/J
        JdbcDialect.MARIADB.checkVersion("MariaDB", "11.4.2-MariaDB");
        JdbcDialect.MARIADB.checkVersion("MySQL", "8.0.1");
        JdbcDialect.MARIADB.checkVersion("MySQL", "8.4.0");
        assertThatIllegalStateException()
                .isThrownBy(() -> JdbcDialect.MARIADB.checkVersion("MariaDB", "10.5.23-MariaDB"))
                .withMessageContaining("MariaDB 10.6 or later")
                .withMessageContaining("10.5.23");
        assertThatIllegalStateException()
                .isThrownBy(() -> JdbcDialect.MARIADB.checkVersion("MySQL", "5.5.5-10.4.1-MariaDB"))
                .withMessageContaining("MariaDB 10.6 or later");
        assertThatIllegalStateException()
                .isThrownBy(() -> JdbcDialect.MARIADB.checkVersion("MySQL", "8.0.0-dmr"))
                .withMessageContaining("MySQL 8.0.1 or later");
        assertThatIllegalStateException()
                .isThrownBy(() -> JdbcDialect.MARIADB.checkVersion("MySQL", "5.7.44"))
                .withMessageContaining("MySQL 8.0.1 or later");
    }

    /** A lost deadlock runs again only where no transaction of the caller's would be split. */
    @Test
    void shouldRetryOnlyALostDeadlock() {
        var deadlock = new PessimisticLockingFailureException(
                "lost", new SQLTransactionRollbackException("Deadlock found", "40001", 1213));
        var lockWaitTimeout =
                new CannotAcquireLockException("timeout", new SQLException("Lock wait timeout", "HY000", 1205));
        assertThat(DeadlockRetry.retriable(deadlock, 1)).isTrue();
        assertThat(DeadlockRetry.retriable(deadlock, 3)).as("bounded").isFalse();
        assertThat(DeadlockRetry.retriable(lockWaitTimeout, 1)).isFalse();
    }

    /**
     * The server at +05:30, a session at -08:00 and the JVM at Pacific/Chatham (+12:45 or +13:45):
     * an instant written, compared with the clock and read back is the same instant, and the clock
     * is UTC.
     */
    @Test
    void shouldMoveNoInstantWhateverTheZones() {
        TestDatabases.assumeMariaDb();
        TimeZone jvmZone = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Chatham"));
        try {
            DataSource dataSource = TestDatabases.newMariaDb();
            JdbcDialect dialect = JdbcDialect.detect(dataSource);
            assertThat(dialect).isEqualTo(JdbcDialect.MARIADB);
            JdbcTemplate jdbc = new JdbcTemplate(new SingleZoneSessions(dataSource, "-08:00"));
            jdbc.execute("CREATE TABLE t (k VARCHAR(10) PRIMARY KEY, at DATETIME(6))");
            Instant at = Instant.parse("2040-07-01T12:00:00.123456Z"); // after 2038, in summer time
            jdbc.update("INSERT INTO t (k, at) VALUES ('a', ?)", dialect.bind(at));

            Instant read = jdbc.queryForObject("SELECT at FROM t", (rs, n) -> dialect.readInstant(rs, "at"));
            assertThat(read).isEqualTo(at);
            assertThat(jdbc.queryForObject("SELECT at FROM t", LocalDateTime.class))
                    .as("stored as UTC")
                    .isEqualTo(LocalDateTime.ofInstant(at, ZoneOffset.UTC));
            Instant now = dialect.currentTime(jdbc);
            assertThat(Duration.between(now, Instant.now()).abs()).isLessThan(Duration.ofSeconds(5));
            assertThat(jdbc.queryForObject(
                            "SELECT COUNT(*) FROM t WHERE at > " + dialect.nowPlusMillis(),
                            Integer.class,
                            Duration.between(Instant.now(), at).minusMinutes(1).toMillis()))
                    .as("compared with the clock in UTC")
                    .isEqualTo(1);
            assertThat(jdbc.queryForObject(
                            "SELECT COUNT(*) FROM t WHERE at > " + dialect.nowPlusMillis(),
                            Integer.class,
                            Duration.between(Instant.now(), at).plusMinutes(1).toMillis()))
                    .isZero();
        } finally {
            TimeZone.setDefault(jvmZone);
        }
    }

    /**
     * An insert-if-absent that finds its key taken returns 0 without an error from the server, so
     * that the connector logs nothing: losing a fire is normal and silent, whether the connector
     * reports rows found (its default) or rows changed ({@code useAffectedRows}).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldLoseAnInsertIfAbsentWithoutAnErrorFromTheServer(boolean useAffectedRows) {
        TestDatabases.assumeMariaDb();
        JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.pooled(
                MariaDbServer.shared().newDatabaseUrl() + "?useAffectedRows=" + useAffectedRows,
                MariaDbServer.USER,
                1000));
        jdbc.execute("CREATE TABLE t_fires (k VARCHAR(10) PRIMARY KEY, n INT NOT NULL) ENGINE = InnoDB");
        String insert = "INSERT INTO t_fires (k, n) SELECT ?, ? WHERE 1 = 1";
        try (LoggedWarnings warnings = LoggedWarnings.capture()) {
            assertThat(JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "a", 1)).isEqualTo(1);
            assertThat(JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "a", 2)).isZero();
            assertThat(JdbcDialect.MARIADB.insertIfAbsent(jdbc, "INSERT INTO t_fires (k, n) VALUES (?, ?)", "a", 3))
                    .isZero();
            assertThat(warnings.lines()).isEmpty();
        }
        assertThat(jdbc.queryForObject("SELECT n FROM t_fires WHERE k = 'a'", Integer.class))
                .isEqualTo(1);
    }

    /**
     * A value too long for its column is refused with an error that names it, as a plain insert
     * would be, and not taken as written: cut to fit, it could record a fire under another job's name.
     */
    @Test
    void shouldRefuseAValueTooLongForItsColumnInsteadOfCuttingIt() {
        JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.newMariaDb());
        jdbc.execute("CREATE TABLE t_fires (k VARCHAR(3) PRIMARY KEY) ENGINE = InnoDB");
        String insert = "INSERT INTO t_fires (k) VALUES (?)";
        assertThatThrownBy(() -> JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "abcdef"))
                .isInstanceOf(DataIntegrityViolationException.class)
                .hasMessageContaining("column 'k'")
                .hasMessageContaining("t_fires");
    }

    /**
     * A value too long that, cut to fit, collides with a key already there is refused too: the
     * server writes no row, and the insert must not pass for a fire lost to another instance.
     */
    @Test
    void shouldRefuseAValueTooLongThatCollidesOnceCut() {
        JdbcTemplate jdbc = new JdbcTemplate(TestDatabases.newMariaDb());
        jdbc.execute("CREATE TABLE t_fires (k VARCHAR(3) PRIMARY KEY) ENGINE = InnoDB");
        String insert = "INSERT INTO t_fires (k) VALUES (?)";
        assertThat(JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "abc")).isEqualTo(1);
        assertThatThrownBy(() -> JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "abcdef"))
                .isInstanceOf(DataIntegrityViolationException.class)
                .hasMessageContaining("column 'k'")
                .hasMessageContaining("t_fires");
        assertThat(JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "abc"))
                .as("a plain loss stays silent")
                .isZero();
    }

    /**
     * An insert-if-absent that loses a real deadlock (it holds a shared lock on the row its condition
     * reads, and waits for a duplicate key another transaction inserted, which then locks that row) runs
     * again, and then finds the key taken instead of failing.
     */
    @Test
    void shouldRunAnInsertThatLostADeadlockAgain() throws Exception {
        DataSource dataSource = TestDatabases.newMariaDb();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE t_jobs (name VARCHAR(10) PRIMARY KEY) ENGINE = InnoDB");
        jdbc.execute("CREATE TABLE t_fires (k VARCHAR(10) PRIMARY KEY) ENGINE = InnoDB");
        jdbc.update("INSERT INTO t_jobs (name) VALUES ('j')");
        long deadlocksBefore = deadlocks(jdbc);
        String insert = "INSERT INTO t_fires (k) SELECT ? WHERE EXISTS (SELECT 1 FROM t_jobs WHERE name = 'j')";
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (Statement statement = other.createStatement()) {
                statement.executeUpdate("INSERT INTO t_fires (k) VALUES ('a')");
                Future<Integer> inserted = thread.submit(() -> JdbcDialect.MARIADB.insertIfAbsent(jdbc, insert, "a"));
                await().atMost(TestDelays.LONG)
                        .until(() -> jdbc.queryForObject(
                                        "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
                                        Integer.class)
                                == 1);
                statement
                        .executeQuery("SELECT name FROM t_jobs WHERE name = 'j' FOR UPDATE")
                        .close();
                other.commit();
                assertThat(inserted.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                        .as("run again after the deadlock, it finds the key taken")
                        .isZero();
            }
        } finally {
            thread.shutdownNow();
        }
        assertThat(deadlocks(jdbc)).as("a deadlock happened").isGreaterThan(deadlocksBefore);
    }

    /**
     * An update that loses a real deadlock (it holds the secondary index entry it scanned and waits
     * for the row another transaction updated, which then asks for that entry) runs again once the
     * winner commits, and updates the row: a lease renewal against a completion, in small.
     */
    @Test
    void shouldRunAnUpdateThatLostADeadlockAgain() throws Exception {
        DataSource dataSource = TestDatabases.newMariaDb();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE t_claims (id INT PRIMARY KEY, owner VARCHAR(10), renewals INT NOT NULL,"
                + " INDEX t_claims_owner (owner)) ENGINE = InnoDB");
        jdbc.execute("CREATE TABLE t_other (id INT PRIMARY KEY) ENGINE = InnoDB");
        jdbc.update("INSERT INTO t_claims (id, owner, renewals) VALUES (1, 'a', 0)");
        long deadlocksBefore = deadlocks(jdbc);
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (Statement statement = other.createStatement()) {
                // the heavier transaction, so that InnoDB picks the renewal as the deadlock's loser
                statement.executeUpdate("INSERT INTO t_other (id) VALUES (1), (2), (3), (4), (5), (6), (7), (8)");
                statement.executeUpdate("UPDATE t_claims SET renewals = renewals WHERE id = 1");
                Future<Integer> renewed = thread.submit(() -> JdbcDialect.MARIADB.update(
                        jdbc,
                        "UPDATE t_claims SET renewals = renewals + 1 WHERE owner = ?",
                        ps -> ps.setString(1, "a")));
                await().atMost(TestDelays.LONG)
                        .until(() -> jdbc.queryForObject(
                                        "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'",
                                        Integer.class)
                                == 1);
                statement
                        .executeQuery("SELECT id FROM t_claims WHERE owner = 'a' FOR UPDATE")
                        .close();
                other.commit();
                assertThat(renewed.get(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                        .as("run again after the deadlock")
                        .isEqualTo(1);
            }
        } finally {
            thread.shutdownNow();
        }
        assertThat(deadlocks(jdbc)).as("a deadlock happened").isGreaterThan(deadlocksBefore);
        assertThat(jdbc.queryForObject("SELECT renewals FROM t_claims WHERE id = 1", Integer.class))
                .isEqualTo(1);
    }

    private static long deadlocks(JdbcTemplate jdbc) {
        return jdbc.queryForObject(
                "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_DEADLOCKS'",
                Long.class);
    }
}
