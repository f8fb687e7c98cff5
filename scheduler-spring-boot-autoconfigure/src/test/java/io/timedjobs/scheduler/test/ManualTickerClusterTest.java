package io.timedjobs.scheduler.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@code @AutoConfigureManualTicker} in an application with scheduler-jdbc and a DataSource:
 * cluster coordination is off unless the test asks for it, so the ticker drives the jobs.
 */
class ManualTickerClusterTest {

    private static final String TURNED_OFF = "@AutoConfigureManualTicker turns Timed Jobs cluster coordination off";

    /** The README's recipe: the hourly job runs at start-up and once per advanced hour. */
    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    @SpringBootTest(classes = HourlyJobWithDatabase.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
    @AutoConfigureManualTicker
    class ByDefault {

        @Autowired
        ManualTicker ticker;

        @Autowired
        HourlyJobWithDatabase job;

        @Autowired
        ApplicationContext context;

        @Test
        void shouldRunTheHourlyJobOnTheTickerWithoutTheCluster(CapturedOutput output) {
            assertThat(context.getBeanProvider(ClusteredJobs.class).getIfAvailable())
                    .isNull();
            assertThat(context.getEnvironment().getProperty("timed-jobs.cluster.enabled"))
                    .isEqualTo("false");
            assertThat(output.getAll().split(TURNED_OFF, -1)).hasSize(2);

            ticker.advance(Duration.ZERO);
            assertThat(job.runs).hasValue(1);
            ticker.advance(Duration.ofHours(1));
            assertThat(job.runs).hasValue(2);
            ticker.advance(Duration.ofHours(1));
            assertThat(job.runs).hasValue(3);
        }
    }

    /** {@code cluster = true}: the job is clustered, and follows the database clock. */
    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    @SpringBootTest(classes = HourlyJobWithDatabase.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
    @AutoConfigureManualTicker(cluster = true)
    class WithTheCluster {

        @Autowired
        ApplicationContext context;

        @Test
        void shouldKeepTheClusterWhenAskedFor(CapturedOutput output) {
            ClusteredJobs jobs = context.getBean(ClusteredJobs.class);
            assertThat(jobs.jobNames()).singleElement().asString().endsWith(".everyHour");
            assertThat(output.getAll()).doesNotContain(TURNED_OFF);
        }
    }

    /** The test's own property decides over the annotation's default. */
    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    @SpringBootTest(
            classes = HourlyJobWithDatabase.class,
            webEnvironment = SpringBootTest.WebEnvironment.NONE,
            properties = "timed-jobs.cluster.enabled=true")
    @AutoConfigureManualTicker
    class WithTheClusterProperty {

        @Autowired
        ApplicationContext context;

        @Test
        void shouldKeepTheClusterWhenTheTestSetsTheProperty(CapturedOutput output) {
            assertThat(context.getBean(ClusteredJobs.class).jobNames()).hasSize(1);
            assertThat(output.getAll()).doesNotContain(TURNED_OFF);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class HourlyJobWithDatabase {
        private static final AtomicInteger DATABASES = new AtomicInteger();

        final AtomicInteger runs = new AtomicInteger();

        @Bean
        DataSource dataSource() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL(
                    "jdbc:h2:mem:manual_ticker_cluster_" + DATABASES.incrementAndGet() + ";DB_CLOSE_DELAY=-1");
            dataSource.setUser("sa");
            return dataSource;
        }

        @Scheduled(fixedRate = 3_600_000)
        void everyHour() {
            runs.incrementAndGet();
        }
    }
}
