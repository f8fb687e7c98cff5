package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import io.timedjobs.scheduler.jdbc.history.RunHistoryQuery;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.jdbc.history.RunRecord;
import io.timedjobs.scheduler.spring.JobSnapshot;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.spring.TrackedJob;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reactive {@code @Scheduled} methods ({@code Mono}, {@code Flux}), which Spring runs by
 * subscribing, as clustered jobs: two Spring Boot applications on one PostgreSQL, each job's
 * publisher taking longer than its period or delay.
 */
class ReactiveJobsTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** How long each publisher of the slow jobs takes, longer than their periods. */
    static final Duration LENGTH = Duration.ofMillis(1200);

    /** How long the failing job's publisher takes before it signals its error. */
    static final Duration FAILING_LENGTH = Duration.ofMillis(400);

    /** Every subscription of the jobs' publishers, across the applications of one test. */
    static final ConcurrentLinkedQueue<Run> RUNS = new ConcurrentLinkedQueue<>();

    /** The job of every subscription begun, across the applications of one test. */
    static final ConcurrentLinkedQueue<String> STARTED = new ConcurrentLinkedQueue<>();

    private static EmbeddedPostgres postgres;
    private static HikariDataSource dataSource;

    private final List<ConfigurableApplicationContext> applications = new ArrayList<>();

    /**
     * One subscription: the fire {@code currentFire()} gave while it subscribed and the one its
     * Reactor Context gave on the timer's thread, and when it started and ended (System.nanoTime()).
     */
    record Run(String job, @Nullable Instant fire, @Nullable Instant contextFire, long start, long end) {}

    @BeforeAll
    static void startDatabase() throws IOException {
        postgres = EmbeddedPostgres.builder().start();
        dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
        dataSource.setUsername("postgres");
        dataSource.setMaximumPoolSize(10);
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
     * Each fire of a fixed-delay, a fixed-rate and a cron {@code Mono}/{@code Flux} job whose
     * publisher outlasts its period runs once across two instances, runs never overlap, each knows
     * its fire, the history records the publisher's real length and outcome, and a graceful stop
     * waits for the publishers under way.
     */
    @Test
    void shouldRunEachReactiveFireOnceUntilItsPublisherEnds() {
        RUNS.clear();
        STARTED.clear();
        applications.add(start("reactive-1"));
        applications.add(start("reactive-2"));
        List<String> jobs = List.of("delayed", "rate", "cron", "failing");
        await().atMost(WAIT).until(() -> jobs.stream().allMatch(job -> ended(job) >= 3));

        for (String job : jobs) {
            List<Run> runs = runs(job);
            assertThat(runs).as("runs of %s", job).allSatisfy(run -> {
                assertThat(run.fire()).as("currentFire() while subscribing").isNotNull();
                assertThat(run.contextFire()).as("fire in the Reactor Context").isEqualTo(run.fire());
            });
            Map<Instant, Long> perFire = runs.stream()
                    .collect(Collectors.groupingBy(run -> Objects.requireNonNull(run.fire()), Collectors.counting()));
            assertThat(perFire.values())
                    .as("runs per fire of %s: %s", job, perFire)
                    .allMatch(count -> count == 1);
            for (int i = 1; i < runs.size(); i++) {
                assertThat(runs.get(i).start())
                        .as("run %s of %s starts after the previous one ended: %s", i, job, runs)
                        .isGreaterThanOrEqualTo(runs.get(i - 1).end());
            }
        }

        RunHistory history = applications.get(0).getBean(RunHistory.class);
        await().atMost(WAIT)
                .until(() -> jobs.stream()
                        .allMatch(job -> history.find(RunHistoryQuery.all()
                                                .job("jobs." + job)
                                                .outcome(RunOutcome.SUCCEEDED, RunOutcome.FAILED))
                                        .size()
                                >= 3));
        for (String job : jobs) {
            // its runs (the fires its runs outlasted are skips: STILL_RUNNING)
            List<RunRecord> records = history.find(
                    RunHistoryQuery.all().job("jobs." + job).outcome(RunOutcome.SUCCEEDED, RunOutcome.FAILED));
            // a run's record is written after its publisher ended, and so after its entry here
            Map<Instant, Run> byFire = runs(job).stream()
                    .collect(Collectors.toMap(run -> Objects.requireNonNull(run.fire()), Function.identity()));
            boolean failing = job.equals("failing");
            for (RunRecord record : records) {
                assertThat(byFire).as("a run of %s for %s", job, record).containsKey(record.fireAt());
                assertThat(record.duration())
                        .as("duration of %s", record)
                        .isGreaterThanOrEqualTo(failing ? FAILING_LENGTH : LENGTH);
                assertThat(record.outcome())
                        .as("outcome of %s", record)
                        .isEqualTo(failing ? RunOutcome.FAILED : RunOutcome.SUCCEEDED);
                if (failing) {
                    assertThat(record.error()).contains("IllegalStateException").contains("no report today");
                }
            }
        }

        applications.forEach(ConfigurableApplicationContext::close);
        applications.clear();
        for (String job : jobs) {
            assertThat(ended(job))
                    .as("runs of %s that ended by the time the applications had stopped", job)
                    .isEqualTo(STARTED.stream().filter(job::equals).count());
        }
    }

    /** Reactive jobs are named by bean and method, clustered or not, in the scheduler's listing. */
    @Test
    void shouldNameReactiveJobsByBeanAndMethod() {
        ConfigurableApplicationContext application = start("reactive-names");
        applications.add(application);
        List<JobSnapshot> jobs = application.getBean(LeaderFollowerTaskScheduler.class).getJobRegistry().jobs().stream()
                .map(TrackedJob::snapshot)
                .toList();
        assertThat(jobs)
                .filteredOn(JobSnapshot::sharedByInstances)
                .extracting(JobSnapshot::name)
                .containsExactlyInAnyOrder("jobs.delayed", "jobs.rate", "jobs.cron", "jobs.failing");
        assertThat(jobs)
                .filteredOn(job -> !job.sharedByInstances())
                .extracting(JobSnapshot::name)
                .containsExactly("jobs.everywhere");
    }

    private static List<Run> runs(String job) {
        return RUNS.stream()
                .filter(run -> run.job().equals(job))
                .sorted(Comparator.comparingLong(Run::start))
                .toList();
    }

    private static long ended(String job) {
        return RUNS.stream().filter(run -> run.job().equals(job)).count();
    }

    private static ConfigurableApplicationContext start(String name) {
        return new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.main.banner-mode=off",
                        // each reactive run holds a worker until its publisher ends, as a blocking run does
                        "timed-jobs.pool-size=6",
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
            return new DelegatingDataSource(ReactiveJobsTest.dataSource);
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    /** Spring calls each method once, at start-up, and subscribes to what it returned at each fire. */
    static class Jobs {

        @Scheduled(fixedDelay = 300)
        Mono<Void> delayed() {
            return timed("delayed", LENGTH, false);
        }

        @Scheduled(fixedRate = 500)
        Flux<Long> rate() {
            return Flux.interval(Duration.ofMillis(LENGTH.toMillis() / 4))
                    .take(4)
                    .mergeWith(timed("rate", LENGTH, false).then(Mono.empty()));
        }

        @Scheduled(cron = "* * * * * *")
        Mono<Void> cron() {
            return timed("cron", LENGTH, false);
        }

        @Scheduled(fixedRate = 1000)
        @RunOnEveryInstance
        Mono<Void> everywhere() {
            return Mono.empty();
        }

        @Scheduled(fixedRate = 700)
        Mono<Void> failing() {
            return timed("failing", FAILING_LENGTH, true);
        }

        /**
         * A publisher that notes the fire while it is subscribed to, waits on Reactor's timer thread,
         * reads the fire from its Context there, and records the run when it ends.
         */
        private static Mono<Void> timed(String job, Duration length, boolean fail) {
            return Mono.defer(() -> {
                Instant fire = ClusteredJobs.currentFire();
                long start = System.nanoTime();
                STARTED.add(job);
                return Mono.delay(length).then(Mono.deferContextual(context -> {
                    Instant contextFire = context.getOrDefault(ClusteredJobs.FIRE_CONTEXT_KEY, null);
                    RUNS.add(new Run(job, fire, contextFire, start, System.nanoTime()));
                    return fail ? Mono.error(new IllegalStateException("no report today")) : Mono.empty();
                }));
            });
        }
    }
}
