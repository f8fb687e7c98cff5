package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application whose database user may not create the tables fails start-up with a failure
 * analysis naming the right and initialize-schema=never, and starts once the right is granted.
 */
class SchemaPrivilegeFailureAnalysisTest {

    /** On PostgreSQL, a role without CREATE on the schema: the analysis names it; after the grant the cluster starts. */
    @Test
    void shouldExplainAMissingRightAndStartAfterTheGrant() {
        DataSource admin = TestDatabases.newPostgres();
        JdbcTemplate root = new JdbcTemplate(admin);
        String adminUrl = ((HikariDataSource) admin).getJdbcUrl();
        String url = adminUrl.contains("?") ? adminUrl.substring(0, adminUrl.indexOf('?')) : adminUrl;
        root.execute("CREATE ROLE tj_app LOGIN");
        root.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
        root.execute("GRANT USAGE ON SCHEMA public TO tj_app");
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class))
                .withBean(DataSource.class, () -> TestDatabases.pooled(url, "tj_app", 30_000))
                .withPropertyValues("timed-jobs.jdbc.initialize-schema=always");

        runner.run(context -> {
            FailureAnalysis analysis = new SchemaPrivilegeFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("lacks the right CREATE on the schema");
            assertThat(analysis.getAction())
                    .contains("Grant the right")
                    .contains("timed-jobs.jdbc.initialize-schema=never");
        });

        root.execute("GRANT CREATE ON SCHEMA public TO tj_app");
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(ClusterInstance.class);
        });
    }
}
