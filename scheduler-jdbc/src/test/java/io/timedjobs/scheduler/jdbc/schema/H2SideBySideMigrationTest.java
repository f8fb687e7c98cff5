package io.timedjobs.scheduler.jdbc.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * Two processes starting together on one server-mode H2 database, which has no lock across
 * processes: one migrates while the other is halfway through the same scripts. The second finds
 * each change made and each version recorded, and goes on to its end.
 */
class H2SideBySideMigrationTest {

    /**
     * The other process runs the whole migration at the moment this one is about to add version 4's
     * column: this one then meets a column that exists, versions recorded before it, and tables and
     * indexes already there.
     */
    @Test
    void shouldFinishWhenAnotherProcessMigratesTheSameScriptsMeanwhile() throws Exception {
        DataSource dataSource = TestDatabases.Kind.H2.newDatabase();
        ClusterDatabase database = ClusterDatabase.of(dataSource, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(database.dialect(), database.tables());
        try (Connection connection = dataSource.getConnection()) {
            for (String script : List.of(
                    "schema_version.sql", "V1__timed_jobs.sql", "V2__job_definitions.sql", "V3__trace_context.sql")) {
                ScriptUtils.executeSqlScript(
                        connection,
                        new ByteArrayResource(migration.script(script).getBytes(StandardCharsets.UTF_8)));
            }
        }
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.update("INSERT INTO timed_jobs_schema_version (version, script, applied_at, applied_by) VALUES"
                + " (1, 'V1__timed_jobs.sql', CURRENT_TIMESTAMP, 'test'),"
                + " (2, 'V2__job_definitions.sql', CURRENT_TIMESTAMP, 'test'),"
                + " (3, 'V3__trace_context.sql', CURRENT_TIMESTAMP, 'test')");
        AtomicBoolean otherRan = new AtomicBoolean();
        List<Integer> ran;
        try (Connection mine = dataSource.getConnection();
                Connection others = dataSource.getConnection()) {
            Connection interleaved = otherProcessBefore("ADD COLUMN caught_up_to", mine, () -> {
                others.setAutoCommit(false);
                assertThat(new SchemaMigration(database.dialect(), database.tables()).migrate(others))
                        .containsExactlyElementsOf(versionsFrom(4));
                others.commit();
                otherRan.set(true);
            });
            mine.setAutoCommit(false);
            ran = migration.migrate(interleaved);
            mine.commit();
        }

        assertThat(otherRan).isTrue();
        assertThat(ran).containsExactlyElementsOf(versionsFrom(4));
        assertThat(jdbc.queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(IntStream.rangeClosed(1, SchemaMigration.CURRENT)
                        .boxed()
                        .toList());
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'TIMED_JOBS_JOBS'"
                                + " AND COLUMN_NAME = 'CAUGHT_UP_TO'",
                        Integer.class))
                .as("version 4's column, once")
                .isEqualTo(1);
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'TIMED_JOBS_RUN_HISTORY'",
                        Integer.class))
                .as("version 5's table")
                .isEqualTo(1);
    }

    /**
     * The other process is halfway through version 1 (two of its tables made) as this one starts:
     * this one records version 1 as found in place and meets a table not made yet; the whole script
     * runs again once the other process made it, and ends at the current version.
     */
    @Test
    void shouldRunAgainWhenATableTheOtherProcessMakesIsNotThereYet() throws Exception {
        DataSource target = TestDatabases.Kind.H2.newDatabase();
        ClusterDatabase plain = ClusterDatabase.of(target, TableNames.defaults());
        SchemaMigration migration = new SchemaMigration(plain.dialect(), plain.tables());
        List<String> version1 = SchemaMigration.statements(migration.script("V1__timed_jobs.sql"));
        try (Connection connection = target.getConnection();
                Statement statement = connection.createStatement()) {
            for (String sql : SchemaMigration.statements(migration.script("schema_version.sql"))) {
                statement.execute(sql);
            }
            statement.execute(version1.get(0)); // instances
            statement.execute(version1.get(1)); // jobs
        }
        AtomicBoolean otherFinished = new AtomicBoolean();
        DataSource interleaved = new DelegatingDataSource(target) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = super.getConnection();
                return (Connection) Proxy.newProxyInstance(
                        Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            if (method.getName().equals("rollback") && otherFinished.compareAndSet(false, true)) {
                                try (Connection others = target.getConnection();
                                        Statement statement = others.createStatement()) {
                                    for (String sql : version1.subList(2, version1.size())) {
                                        statement.execute(sql);
                                    }
                                }
                            }
                            return invoke(method, connection, args);
                        });
            }
        };

        new SchemaInitializer(ClusterDatabase.of(interleaved, TableNames.defaults()))
                .initialize(SchemaInitializer.Mode.ALWAYS);

        assertThat(otherFinished)
                .as("ran again after the other process made its tables")
                .isTrue();
        JdbcTemplate jdbc = new JdbcTemplate(target);
        assertThat(jdbc.queryForList("SELECT version FROM timed_jobs_schema_version ORDER BY version", Integer.class))
                .containsExactlyElementsOf(IntStream.rangeClosed(1, SchemaMigration.CURRENT)
                        .boxed()
                        .toList());
        assertThat(jdbc.queryForObject(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'TIMED_JOBS_TASKS'"
                                + " AND COLUMN_NAME = 'TRACE_PARENT'",
                        Integer.class))
                .as("version 3's column on the table the other process made")
                .isEqualTo(1);
    }

    /** What the other process does, at one moment of this one's migration. */
    private interface OtherProcess {
        void run() throws Exception;
    }

    /**
     * A connection that runs {@code other} once, just before the first statement containing
     * {@code marker} is executed on it.
     */
    private static Connection otherProcessBefore(String marker, Connection target, OtherProcess other) {
        AtomicBoolean done = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(method, target, args);
                    if (!method.getName().equals("createStatement") || !(result instanceof Statement statement)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(
                            Statement.class.getClassLoader(),
                            new Class<?>[] {Statement.class},
                            (statementProxy, statementMethod, statementArgs) -> {
                                if (statementMethod.getName().equals("execute")
                                        && statementArgs != null
                                        && statementArgs[0] instanceof String sql
                                        && sql.contains(marker)
                                        && done.compareAndSet(false, true)) {
                                    other.run();
                                }
                                return invoke(statementMethod, statement, statementArgs);
                            });
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** The versions from {@code first} to the current one, in order. */
    private static List<Integer> versionsFrom(int first) {
        return IntStream.rangeClosed(first, SchemaMigration.CURRENT).boxed().toList();
    }
}
