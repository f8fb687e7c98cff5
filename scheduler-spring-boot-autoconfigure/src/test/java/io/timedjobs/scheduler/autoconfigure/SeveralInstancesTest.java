package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * As a user would run it: three Spring Boot applications with the starter's auto-configuration and
 * scheduler-jdbc, {@code initialize-schema=always}, on one PostgreSQL.
 */
class SeveralInstancesTest {

    private static final Duration WAIT = Duration.ofSeconds(40);

    /** Runs per job and nominal fire, across the applications of one test. */
    static final ConcurrentMap<String, ConcurrentMap<Instant, AtomicInteger>> RUNS = new ConcurrentHashMap<>();

    private static EmbeddedPostgres postgres;
    private static HikariDataSource dataSource;

    private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

    @BeforeAll
    static void startDatabase() throws IOException {
        postgres = EmbeddedPostgres.builder().start();
        dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
        dataSource.setUsername("postgres");
        dataSource.setMaximumPoolSize(8);
        dataSource.setConnectionTimeout(1000);
    }

    @AfterAll
    static void stopDatabase() throws IOException {
        dataSource.close();
        postgres.close();
    }

    @AfterEach
    void closeApplications() {
        applications.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * Each cron and fixed-rate fire runs once across the three applications, and none is lost when
     * one of them stops.
     */
    @Test
    void shouldRunEachFireOnceAndLoseNoneWhenOneStops() {
        RUNS.clear();
        for (int i = 1; i <= 3; i++) {
            applications.add(start("app-" + i));
        }
        await().atMost(WAIT)
                .until(() -> fires("cron").size() >= 3 && fires("rate").size() >= 3);
        applications.remove(0).close();
        Instant stopped = Instant.now();
        await().atMost(WAIT)
                .until(() -> fires("cron").stream().filter(stopped::isBefore).count() >= 3
                        && fires("rate").stream().filter(stopped::isBefore).count() >= 3);
        applications.forEach(ConfigurableApplicationContext::close);
        applications.clear();

        for (String job : List.of("cron", "rate")) {
            Map<Instant, AtomicInteger> runs = new TreeMap<>(RUNS.get(job));
            assertThat(runs.values()).as("runs per fire of %s: %s", job, runs).allMatch(count -> count.get() == 1);
            List<Instant> fires = fires(job);
            for (int i = 1; i < fires.size(); i++) {
                assertThat(Duration.between(fires.get(i - 1), fires.get(i)))
                        .as("fires of %s: %s", job, fires)
                        .isEqualTo(Duration.ofSeconds(1));
            }
        }
    }

    private static List<Instant> fires(String job) {
        return new ArrayList<>(new TreeMap<>(RUNS.getOrDefault(job, new ConcurrentHashMap<>())).keySet());
    }

    private static ConfigurableApplicationContext start(String name) {
        return new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.main.banner-mode=off",
                        "timed-jobs.jdbc.initialize-schema=always",
                        "timed-jobs.cluster.instance-name=" + name,
                        "timed-jobs.cluster.poll-interval=200ms",
                        "timed-jobs.cluster.lease=5s",
                        "timed-jobs.cluster.time-zone=UTC")
                .run();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class})
    @EnableScheduling
    static class Application {

        @Bean
        DataSource dataSource() {
            // Shared by the applications of the test: not closed with any one of them.
            return new DelegatingDataSource(SeveralInstancesTest.dataSource);
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        @Scheduled(cron = "* * * * * *")
        void cron() {
            record("cron");
        }

        @Scheduled(fixedRate = 1000)
        void rate() {
            record("rate");
        }

        private static void record(String job) {
            Instant fire = ClusteredJobs.currentFire();
            RUNS.computeIfAbsent(job, key -> new ConcurrentHashMap<>())
                    .computeIfAbsent(fire, key -> new AtomicInteger())
                    .incrementAndGet();
        }
    }
}
