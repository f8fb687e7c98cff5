package io.timedjobs.scheduler.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;

class SchemaInitializerTest {

    /** 'always' creates every table, with the configured prefix, and running it again is harmless. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCreateTheTablesWithThePrefix(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        TableNames tables = new TableNames("app_tj_");
        SchemaInitializer initializer = new SchemaInitializer(dataSource, JdbcDialect.detect(dataSource), tables);

        initializer.initialize(SchemaInitializer.Mode.ALWAYS);
        initializer.initialize(SchemaInitializer.Mode.ALWAYS);

        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        for (String table : tables.all()) {
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Integer.class))
                    .isZero();
        }
    }

    /** 'never' on an empty database fails naming the table, the script and the property. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldNameTheScriptWhenATableIsMissing(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        SchemaInitializer initializer = new SchemaInitializer(dataSource, dialect, TableNames.defaults());

        assertThatIllegalStateException()
                .isThrownBy(() -> initializer.initialize(SchemaInitializer.Mode.NEVER))
                .withMessageContaining("timed_jobs_instances")
                .withMessageContaining(dialect.schemaLocation("V1__timed_jobs.sql"))
                .withMessageContaining("timed-jobs.jdbc.initialize-schema=always");
    }

    /** 'embedded' creates the tables in H2 in memory and only checks them on PostgreSQL. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldCreateTablesOnlyInMemoryWhenEmbedded(TestDatabases.Kind kind) {
        DataSource dataSource = kind.newDatabase();
        SchemaInitializer initializer =
                new SchemaInitializer(dataSource, JdbcDialect.detect(dataSource), TableNames.defaults());
        if (kind == TestDatabases.Kind.H2) {
            initializer.initialize(SchemaInitializer.Mode.EMBEDDED);
        } else {
            assertThatIllegalStateException()
                    .isThrownBy(() -> initializer.initialize(SchemaInitializer.Mode.EMBEDDED))
                    .withMessageContaining("is missing");
        }
    }

    /** Instances starting together on an empty database all succeed: one creates, the others wait. */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldBeSafeWhenSeveralInstancesStartAtOnce(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            starts.add(CompletableFuture.runAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                new SchemaInitializer(dataSource, dialect, TableNames.defaults())
                        .initialize(SchemaInitializer.Mode.ALWAYS);
            }));
        }
        go.countDown();
        CompletableFuture.allOf(starts.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
    }
}
