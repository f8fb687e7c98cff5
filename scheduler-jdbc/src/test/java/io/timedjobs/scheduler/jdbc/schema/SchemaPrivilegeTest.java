package io.timedjobs.scheduler.jdbc.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.testsupport.MariaDbServer;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A database user without the rights the schema scripts need gets a message naming the missing
 * right and the key that leaves the tables to Flyway or Liquibase; once granted, a new start
 * completes the schema, even on MariaDB, whose DDL commits statement by statement; and a user with
 * only SELECT, INSERT, UPDATE and DELETE runs on tables created by someone else.
 */
class SchemaPrivilegeTest {

    private static final AtomicInteger USERS = new AtomicInteger();

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** A MariaDB database, its root connection, and a user of its own with only the given rights on it. */
    private record MariaDb(JdbcTemplate root, String database, String url, String user) {

        static MariaDb withUser(String rights) {
            TestDatabases.assumeMariaDb();
            String url = MariaDbServer.shared().newDatabaseUrl();
            String database = url.substring(url.lastIndexOf('/') + 1);
            JdbcTemplate root = new JdbcTemplate(TestDatabases.pooled(url, MariaDbServer.USER, 30_000));
            String user = "tj_limited_" + USERS.incrementAndGet();
            root.execute("CREATE USER '" + user + "'@'%'");
            root.execute("GRANT " + rights + " ON " + database + ".* TO '" + user + "'@'%'");
            return new MariaDb(root, database, url, user);
        }

        void grant(String rights) {
            root.execute("GRANT " + rights + " ON " + database + ".* TO '" + user + "'@'%'");
        }

        /** A new pool of the limited user: database rights apply to connections opened after the grant. */
        HikariDataSource asUser() {
            return TestDatabases.pooled(url, user, 30_000);
        }
    }

    private static SchemaInitializer initializer(DataSource dataSource) {
        return new SchemaInitializer(dataSource, JdbcDialect.detect(dataSource), TableNames.defaults());
    }

    private static void assertComplete(DataSource dataSource) {
        initializer(dataSource).initialize(SchemaInitializer.Mode.NEVER);
        assertThat(new JdbcTemplate(dataSource)
                        .queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, SchemaMigration.CURRENT)
                        .boxed()
                        .toList());
    }

    /**
     * Without ALTER, the first script runs and the second stops with a message naming ALTER and
     * initialize-schema=never; after the grant a new start completes the schema.
     */
    @Test
    void shouldNameAlterAndCompleteTheSchemaAfterTheGrantOnMariaDb() {
        // no INDEX either: the indexes are declared in CREATE TABLE, which CREATE covers
        MariaDb db = MariaDb.withUser("SELECT, INSERT, UPDATE, DELETE, CREATE");
        try (HikariDataSource limited = db.asUser()) {
            assertThatThrownBy(() -> initializer(limited).initialize(SchemaInitializer.Mode.ALWAYS))
                    .isInstanceOf(SchemaPrivilegeException.class)
                    .hasMessageContaining("lacks the right ALTER")
                    .hasMessageContaining("V2__job_definitions.sql")
                    .hasMessageContaining("timed-jobs.jdbc.initialize-schema=never")
                    .satisfies(e ->
                            assertThat(((SchemaPrivilegeException) e).right()).isEqualTo("ALTER"));
        }
        db.grant("ALTER");
        try (HikariDataSource limited = db.asUser()) {
            initializer(limited).initialize(SchemaInitializer.Mode.ALWAYS);
            assertComplete(limited);
            assertUsable(limited);
        }
    }

    /** Without CREATE, nothing can be made, and the message names CREATE; after the grant a new start makes it all. */
    @Test
    void shouldNameCreateAndCompleteTheSchemaAfterTheGrantOnMariaDb() {
        MariaDb db = MariaDb.withUser("SELECT, INSERT, UPDATE, DELETE, ALTER, INDEX");
        try (HikariDataSource limited = db.asUser()) {
            assertThatThrownBy(() -> initializer(limited).initialize(SchemaInitializer.Mode.ALWAYS))
                    .isInstanceOf(SchemaPrivilegeException.class)
                    .hasMessageContaining("lacks the right CREATE")
                    .hasMessageContaining("timed-jobs.jdbc.initialize-schema=never");
        }
        db.grant("CREATE");
        try (HikariDataSource limited = db.asUser()) {
            initializer(limited).initialize(SchemaInitializer.Mode.ALWAYS);
            assertComplete(limited);
        }
    }

    /**
     * A migration that stopped halfway on MariaDB (its DDL committed, its versions not recorded; one
     * table and one column of it not made yet) runs again to its end.
     */
    @Test
    void shouldRunAMigrationThatStoppedHalfwayAgainOnMariaDb() {
        MariaDb db = MariaDb.withUser("SELECT");
        DataSource root = db.root().getDataSource();
        initializer(root).initialize(SchemaInitializer.Mode.ALWAYS);
        db.root().update("DELETE FROM timed_jobs_schema_version WHERE version >= 2");
        db.root().execute("DROP TABLE timed_jobs_job_carriers");
        db.root().execute("ALTER TABLE timed_jobs_jobs DROP COLUMN caught_up_to");

        initializer(root).initialize(SchemaInitializer.Mode.ALWAYS);

        assertComplete(root);
    }

    /**
     * Tables created by someone else (as by Flyway): a user with only SELECT, INSERT, UPDATE and
     * DELETE passes the check and registers, beats, schedules and cancels.
     */
    @Test
    void shouldRunWithDataRightsOnlyOnMariaDb() {
        MariaDb db = MariaDb.withUser("SELECT, INSERT, UPDATE, DELETE");
        initializer(db.root().getDataSource()).initialize(SchemaInitializer.Mode.ALWAYS);
        try (HikariDataSource limited = db.asUser()) {
            initializer(limited).initialize(SchemaInitializer.Mode.NEVER);
            assertUsable(limited);
        }
    }

    /** Without CREATE on the schema, PostgreSQL's message names it; after the grant a new start makes it all. */
    @Test
    void shouldNameCreateOnTheSchemaAndCompleteItAfterTheGrantOnPostgres() {
        DataSource admin = TestDatabases.newPostgres();
        JdbcTemplate root = new JdbcTemplate(admin);
        String adminUrl = ((HikariDataSource) admin).getJdbcUrl();
        // without the admin's ?user=postgres, which would win over the pool's user
        String url = adminUrl.contains("?") ? adminUrl.substring(0, adminUrl.indexOf('?')) : adminUrl;
        String role = "tj_limited_" + USERS.incrementAndGet();
        root.execute("CREATE ROLE " + role + " LOGIN");
        // PostgreSQL 15+ gives PUBLIC no CREATE on the public schema; said here for older servers too
        root.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        root.execute("GRANT USAGE ON SCHEMA public TO " + role);
        try (HikariDataSource limited = TestDatabases.pooled(url, role, 30_000)) {
            assertThatThrownBy(() -> initializer(limited).initialize(SchemaInitializer.Mode.ALWAYS))
                    .isInstanceOf(SchemaPrivilegeException.class)
                    .hasMessageContaining("lacks the right CREATE on the schema")
                    .hasMessageContaining("timed-jobs.jdbc.initialize-schema=never");
            assertThat(root.queryForObject(
                            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name LIKE 'timed_jobs%'",
                            Integer.class))
                    .isZero();
            root.execute("GRANT CREATE ON SCHEMA public TO " + role);
            initializer(limited).initialize(SchemaInitializer.Mode.ALWAYS);
            assertComplete(limited);
            assertUsable(limited);
        }
    }

    /**
     * Tables created by another role (as by Flyway): a role with USAGE on the schema and SELECT,
     * INSERT, UPDATE and DELETE on the tables passes the check and registers, beats, schedules (an
     * identity column: no right on its sequence needed) and cancels.
     */
    @Test
    void shouldRunWithDataRightsOnlyOnPostgres() {
        DataSource admin = TestDatabases.newPostgres();
        initializer(admin).initialize(SchemaInitializer.Mode.ALWAYS);
        JdbcTemplate root = new JdbcTemplate(admin);
        String adminUrl = ((HikariDataSource) admin).getJdbcUrl();
        String url = adminUrl.contains("?") ? adminUrl.substring(0, adminUrl.indexOf('?')) : adminUrl;
        String role = "tj_data_" + USERS.incrementAndGet();
        root.execute("CREATE ROLE " + role + " LOGIN");
        root.execute("GRANT USAGE ON SCHEMA public TO " + role);
        root.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + role);
        try (HikariDataSource limited = TestDatabases.pooled(url, role, 30_000)) {
            initializer(limited).initialize(SchemaInitializer.Mode.NEVER);
            assertUsable(limited);
        }
    }

    /** The instance registers and beats, and a durable task is scheduled, found and cancelled. */
    private static void assertUsable(DataSource dataSource) {
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults(), TIMEOUT);
        ClusterInstance instance =
                new ClusterInstance(database.jdbc(), database.dialect(), database.tables(), "limited", TIMEOUT);
        instance.register();
        instance.heartbeat();
        DurableTasks tasks = DurableTaskEngine.builder(database)
                .instanceName("limited")
                .handler("mail", new DurableTaskHandler<String>() {
                    @Override
                    public Class<String> payloadType() {
                        return String.class;
                    }

                    @Override
                    public void handle(DurableTask<String> task) {}
                })
                .build()
                .tasks();
        tasks.schedule("mail", "k", Duration.ofHours(1), "hello");
        assertThat(tasks.find("mail", "k")).isPresent();
        assertThat(tasks.cancel("mail", "k")).isTrue();
    }
}
