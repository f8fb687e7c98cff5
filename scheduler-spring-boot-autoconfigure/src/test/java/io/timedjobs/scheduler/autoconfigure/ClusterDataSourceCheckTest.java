package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterInstance;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * With {@code scheduler-jdbc} on the class path and Spring Boot's own DataSource auto-configuration,
 * the cluster is on, or start-up fails saying what is missing, or it is off on purpose and says so.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterDataSourceCheckTest {

    private static final AtomicInteger DATABASES = new AtomicInteger();

    /** The class of Boot's DataSource auto-configuration, Spring Boot 4's name or Spring Boot 3.5's. */
    private static Class<?> bootDataSourceAutoConfiguration() {
        for (String name : new String[] {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration"
        }) {
            if (ClassUtils.isPresent(name, null)) {
                return ClassUtils.resolveClassName(name, null);
            }
        }
        throw new IllegalStateException("no DataSourceAutoConfiguration on the test class path");
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    bootDataSourceAutoConfiguration(),
                    SchedulerAutoConfiguration.class,
                    ClusterAutoConfiguration.class,
                    ClusterDataSourceCheckAutoConfiguration.class));

    /**
     * Hides the connection pool and the embedded databases, as for an application with spring-jdbc
     * but not spring-boot-starter-jdbc: Boot's auto-configuration then makes no DataSource. (With a
     * pool and no URL, Boot's own start-up fails first, with its own analysis.)
     */
    private static final FilteredClassLoader NO_EMBEDDED_DATABASE =
            new FilteredClassLoader("com.zaxxer.hikari", "org.h2", "org.hsqldb", "org.apache.derby");

    private static FailureAnalysis analysisOf(Throwable failure) {
        FailureAnalysis analysis = new ClusterDataSourceFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("failure analysis of %s", failure).isNotNull();
        return analysis;
    }

    /** Without a connection pool Boot makes no DataSource, and start-up fails naming the starter and the drivers. */
    @Test
    void shouldFailWithAnAnalysisWhenThereIsNoDataSource() {
        runner.withClassLoader(NO_EMBEDDED_DATABASE).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analysisOf(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("no DataSource")
                    .contains("no connection pool is on the class path")
                    .contains("every job would run on every instance");
            assertThat(analysis.getAction())
                    .contains("org.springframework.boot:spring-boot-starter-jdbc")
                    .contains("org.postgresql:postgresql")
                    .contains("org.mariadb.jdbc:mariadb-java-client")
                    .contains("com.mysql:mysql-connector-j")
                    .contains("com.h2database:h2")
                    .contains("timed-jobs.cluster.enabled=false");
        });
    }

    /** Without Boot's JDBC support on the class path, the analysis says to add spring-boot-starter-jdbc. */
    @Test
    void shouldNameTheStarterWhenBootsJdbcSupportIsMissing() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SchedulerAutoConfiguration.class,
                        ClusterAutoConfiguration.class,
                        ClusterDataSourceCheckAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(
                        "org.springframework.boot.jdbc.autoconfigure", "org.springframework.boot.autoconfigure.jdbc"))
                .run(context -> assertThat(
                                analysisOf(context.getStartupFailure()).getDescription())
                        .contains("Spring Boot's JDBC support (org.springframework.boot:spring-boot-starter-jdbc) is"
                                + " not on the class path"));
    }

    /** With timed-jobs.cluster.enabled=false the application starts without a cluster and says so once at INFO. */
    @Test
    void shouldStartWithoutClusterWhenDisabledOnPurpose(CapturedOutput output) {
        runner.withClassLoader(NO_EMBEDDED_DATABASE)
                .withPropertyValues("timed-jobs.cluster.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DataSource.class);
                    assertThat(context).doesNotHaveBean(ClusterInstance.class);
                });

        String notice = "timed-jobs.cluster.enabled=false, so @Scheduled jobs run on every instance";
        assertThat(output.getAll().lines().filter(line -> line.contains(notice)))
                .singleElement()
                .asString()
                .contains("INFO");
    }

    /** With Timed Jobs turned off as a whole, a missing DataSource is no reason to refuse start-up. */
    @Test
    void shouldStartWithoutDataSourceWhenTimedJobsIsOff() {
        runner.withClassLoader(NO_EMBEDDED_DATABASE)
                .withPropertyValues("timed-jobs.enabled=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(ClusterInstance.class);
                });
    }

    /** With a URL for Boot's DataSource, the cluster is on as before: tables made, instance registered. */
    @Test
    void shouldClusterOnBootsDataSource(CapturedOutput output) {
        runner.withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:cluster_check_" + DATABASES.incrementAndGet()
                                + ";DB_CLOSE_DELAY=-1",
                        "timed-jobs.cluster.instance-name=web-1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(ClusterDatabase.class).dataSource())
                            .isSameAs(context.getBean(DataSource.class));
                    assertThat(context.getBean(ClusterInstance.class).name()).isEqualTo("web-1");
                });
        assertThat(output.getAll()).doesNotContain("cluster.enabled=false, so");
    }

    /**
     * A Spring Boot application as users start it, without a connection pool or embedded database:
     * Boot prints the analysis (registered in spring.factories), not a stack trace.
     */
    @Test
    void shouldPrintTheAnalysisWhenAnApplicationStartsWithoutDataSource(CapturedOutput output) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(PlainApplication.class)
                        .resourceLoader(new DefaultResourceLoader(NO_EMBEDDED_DATABASE))
                        .web(WebApplicationType.NONE)
                        .properties("spring.main.banner-mode=off")
                        .run()
                        .close())
                .isInstanceOf(Exception.class);

        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("Timed Jobs found no DataSource for its tables")
                .contains("org.springframework.boot:spring-boot-starter-jdbc")
                .contains("timed-jobs.cluster.enabled=false");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlainApplication {}

    /** Several DataSources and none primary or marked: the failure goes through the same analysis. */
    @Test
    void shouldAnalyseSeveralUnmarkedDataSources() {
        runner.withUserConfiguration(ClusterAutoConfigurationTest.TwoUnmarkedDataSources.class)
                .run(context -> {
                    FailureAnalysis analysis = analysisOf(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("several DataSources and none is primary");
                    assertThat(analysis.getAction())
                            .contains("@TimedJobsDataSource")
                            .contains("timed-jobs.cluster.enabled=false");
                });
    }
}
