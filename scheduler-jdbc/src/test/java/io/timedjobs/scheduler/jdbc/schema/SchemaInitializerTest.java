package io.timedjobs.scheduler.jdbc.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.timedjobs.scheduler.jdbc.LoggedWarnings;
import io.timedjobs.scheduler.jdbc.database.JdbcDialect;
import io.timedjobs.scheduler.jdbc.database.TableNames;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

class SchemaInitializerTest {

    @TempDir
    Path directory;

    /** The warnings of SchemaInitializer while it initializes the H2 database at this URL. */
    private static List<ILoggingEvent> warningsAtStartUp(String url) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        dataSource.setUser("sa");
        Logger logger = (Logger) LoggerFactory.getLogger(SchemaInitializer.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        try {
            new SchemaInitializer(dataSource, JdbcDialect.detect(dataSource), TableNames.defaults())
                    .initialize(SchemaInitializer.Mode.ALWAYS);
        } finally {
            logger.detachAppender(events);
        }
        return events.list.stream()
                .filter(event -> event.getLevel() == Level.WARN)
                .toList();
    }

    /**
     * An H2 file database that H2 closes at JVM exit gets one warning at start-up that says what to
     * add to the URL and why.
     */
    @Test
    void shouldWarnWhenAnH2FileDatabaseClosesAtExit() {
        String url = "jdbc:h2:file:" + directory.resolve("closes-at-exit");

        assertThat(warningsAtStartUp(url))
                .singleElement()
                .satisfies(event -> assertThat(event.getFormattedMessage())
                        .contains(";DB_CLOSE_ON_EXIT=FALSE")
                        .contains("spring.datasource.url")
                        .contains("DataSource must outlive the scheduler")
                        .contains("not released"));
    }

    /** In mixed mode, where H2 refuses DB_CLOSE_ON_EXIT=FALSE, the warning points to a TCP server instead. */
    @Test
    void shouldPointMixedModeToATcpServer() {
        String url = "jdbc:h2:file:" + directory.resolve("mixed") + ";AUTO_SERVER=TRUE";

        assertThat(warningsAtStartUp(url))
                .singleElement()
                .satisfies(event -> assertThat(event.getFormattedMessage())
                        .contains("AUTO_SERVER=TRUE")
                        .contains("jdbc:h2:tcp://")
                        .doesNotContain("Add \";DB_CLOSE_ON_EXIT=FALSE\""));
    }

    /** With DB_CLOSE_ON_EXIT=FALSE, in memory, or on a remote server, there is nothing to warn about. */
    @Test
    void shouldNotWarnWhenH2StaysOpenUntilSpringClosesIt() {
        assertThat(warningsAtStartUp("jdbc:h2:file:" + directory.resolve("stays-open") + ";DB_CLOSE_ON_EXIT=FALSE"))
                .isEmpty();
        assertThat(warningsAtStartUp("jdbc:h2:mem:schema_initializer_warning;DB_CLOSE_DELAY=-1"))
                .isEmpty();
        assertThat(SchemaInitializer.closesAtExit("jdbc:h2:tcp://localhost/~/app"))
                .isFalse();
        assertThat(SchemaInitializer.closesAtExit("jdbc:h2:~/app;AUTO_SERVER=TRUE"))
                .isTrue();
        assertThat(SchemaInitializer.closesAtExit("jdbc:h2:./data/app;db_close_on_exit=false"))
                .isFalse();
    }

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

    /**
     * Instances creating the tables together on an empty database, then starting again, make no
     * call that fails: no driver logs a warning (MariaDB Connector/J logs every error the server
     * sends at WARN).
     */
    @ParameterizedTest
    @EnumSource(TestDatabases.Kind.class)
    void shouldLogNoWarningWhenInstancesCreateTheTablesTogether(TestDatabases.Kind kind) throws Exception {
        DataSource dataSource = kind.newDatabase();
        JdbcDialect dialect = JdbcDialect.detect(dataSource);
        try (LoggedWarnings warnings = LoggedWarnings.capture()) {
            List<CompletableFuture<Void>> starts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                starts.add(CompletableFuture.runAsync(
                        () -> new SchemaInitializer(dataSource, dialect, TableNames.defaults())
                                .initialize(SchemaInitializer.Mode.ALWAYS)));
            }
            CompletableFuture.allOf(starts.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
            new SchemaInitializer(dataSource, dialect, TableNames.defaults()).initialize(SchemaInitializer.Mode.ALWAYS);

            assertThat(warnings.lines()).isEmpty();
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
