package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.testsupport.DatabaseLink;
import io.timedjobs.scheduler.testsupport.TestDatabases;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The cluster's health under a database outage, as an application has it: the auto-configuration
 * on a real PostgreSQL reached through a Hikari pool with Spring Boot's defaults (30 s connection
 * timeout, 10 connections) and a link that is cut as a network fault cuts it.
 */
class ClusterHealthOutageTest {

    /** {@code timed-jobs.cluster.poll-interval} plus {@code database-timeout}, their defaults. */
    private static final Duration DETECTION = Duration.ofSeconds(1).plus(Duration.ofSeconds(2));

    /** Longest answer allowed: a health call reads state, it never waits on the database. */
    private static final Duration ANSWER = Duration.ofMillis(100);

    private static DatabaseLink link;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class))
            .withUserConfiguration(BootDefaultPool.class)
            .withPropertyValues("timed-jobs.jdbc.initialize-schema=always");

    /** One timed health call. */
    private record Answer(long atNanos, Duration took, String status) {}

    private final List<Answer> answers = new ArrayList<>();

    @BeforeEach
    void openLink() throws Exception {
        link = new DatabaseLink(TestDatabases.postgresPort());
    }

    @AfterEach
    void closeLink() throws Exception {
        link.close();
    }

    private Answer ask(SchedulerHealth.ClusterPart health) {
        long start = System.nanoTime();
        String status = health.read(new LinkedHashMap<>());
        Answer answer = new Answer(start, Duration.ofNanos(System.nanoTime() - start), status);
        answers.add(answer);
        return answer;
    }

    /**
     * Through an outage, every health call answers at once; DOWN shows within a poll interval plus
     * the database timeout of the cut, and UP again once the database is back.
     */
    @Test
    void shouldAnswerAtOnceAndReportTheOutageWithinAPollIntervalPlusTheDatabaseTimeout() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            SchedulerHealth.ClusterPart health = context.getBean(SchedulerHealth.ClusterPart.class);
            await().atMost(TestDelays.scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> ask(health).status().equals("UP"));
            // A probe reads steadily: let the heartbeat see it before the cut.
            await().during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> ask(health).status().equals("UP"));

            link.cut(DatabaseLink.Outage.SILENT);
            long cutAt = System.nanoTime();
            await().atMost(DETECTION.plus(TestDelays.scaled(Duration.ofSeconds(1))))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> ask(health).status().equals("DOWN"));
            Duration detected = Duration.ofNanos(answers.get(answers.size() - 1).atNanos() - cutAt);
            // It stays DOWN while the link is cut, however long.
            await().during(Duration.ofSeconds(5))
                    .atMost(Duration.ofSeconds(6))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> ask(health).status().equals("DOWN"));

            link.restore();
            await().atMost(TestDelays.scaled(Duration.ofSeconds(30)))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> ask(health).status().equals("UP"));

            Duration slowest =
                    answers.stream().map(Answer::took).max(Duration::compareTo).orElseThrow();
            System.out.println("Health through the outage: " + answers.size() + " calls, slowest " + slowest + ", DOWN "
                    + detected + " after the cut");
            assertThat(slowest).isLessThan(ANSWER);
        });
    }

    /**
     * A measurement, run on demand ({@code -Dtimed-jobs.measure-health=true}): health read every
     * 100 ms from the cut to a minute after it, printing the slowest answer and each change of
     * status with its time since the cut; every answer is still held to the bound.
     */
    @Test
    void shouldAnswerAtOnceForAMinuteOfOutage() {
        Assumptions.assumeTrue(Boolean.getBoolean("timed-jobs.measure-health"), "a measurement, on demand");
        runner.run(context -> {
            SchedulerHealth.ClusterPart health = context.getBean(SchedulerHealth.ClusterPart.class);
            await().atMost(TestDelays.scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> ask(health).status().equals("UP"));
            answers.clear();
            link.cut(DatabaseLink.Outage.SILENT);
            long cutAt = System.nanoTime();
            await().during(Duration.ofSeconds(60))
                    .atMost(Duration.ofSeconds(61))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> ask(health).took().compareTo(ANSWER) < 0);
            link.restore();
            await().atMost(TestDelays.scaled(Duration.ofSeconds(30)))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> ask(health).status().equals("UP"));
            StringBuilder changes = new StringBuilder();
            String last = "";
            for (Answer answer : answers) {
                if (!answer.status().equals(last)) {
                    last = answer.status();
                    changes.append(String.format(
                            " %s at %d ms;",
                            last, Duration.ofNanos(answer.atNanos() - cutAt).toMillis()));
                }
            }
            Duration slowest =
                    answers.stream().map(Answer::took).max(Duration::compareTo).orElseThrow();
            System.out.println("Health from the cut (60 s) to the return: " + answers.size() + " calls, slowest "
                    + slowest.toNanos() / 1000 + " us; statuses:" + changes);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class BootDefaultPool {

        /** As Spring Boot builds it from {@code spring.datasource.url}: Hikari's own defaults. */
        @Bean(destroyMethod = "close")
        DataSource dataSource() {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl("jdbc:postgresql://localhost:" + link.port() + "/"
                    + TestDatabases.newPostgresDatabaseName().toLowerCase(Locale.ROOT));
            pool.setUsername("postgres");
            return pool;
        }
    }
}
