package io.timedjobs.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Test code only. Reactive {@code @Scheduled} methods (a {@code Mono} with {@code fixedDelay} and
 * one with cron {@code *}{@code /2}, each taking 3 s) on two instances on PostgreSQL, watched for
 * {@code acceptance.reactive.seconds}: clustered jobs like any other.
 */
class ReactiveJobsAcceptanceTest {

    private static final Pattern EVENT =
            Pattern.compile("REACTIVE job=(\\S+) event=(start|end) at=(\\d+) fire=(\\S+) instance=(\\S+)");

    private static final List<String> JOBS = List.of("reactiveCron", "reactiveFixedDelay");

    /** One run: where, when it started and ended (0 while it runs), and its fire as the run saw it. */
    private record Run(String job, String instance, long start, long end, String fire) {

        /** The cron fire this run is for: its own, or else the even second at or before its start. */
        String cronFire() {
            return fire.equals("-") ? "~" + (start / 2000 * 2) : fire;
        }
    }

    /**
     * Each cron fire runs once across the instances, no two runs of a job overlap, each run knows
     * its fire, and the run history records each run with its real duration of about 3 s.
     */
    @Test
    void shouldRunReactiveJobsOncePerFireAndRecordThem() throws SQLException {
        long seconds = Long.getLong("acceptance.reactive.seconds", 16);
        String url = AcceptanceDatabases.newPostgresUrl(AcceptanceDatabases.postgresPort());
        List<AppInstance> instances = new ArrayList<>();
        try {
            for (int i = 1; i <= 2; i++) {
                List<String> args = new ArrayList<>(AcceptanceDatabases.datasource(url));
                args.addAll(List.of(
                        "--spring.profiles.active=reactive", "--timed-jobs.cluster.instance-name=reactive-" + i));
                instances.add(AppInstance.start("reactive-" + i, args));
            }
            instances.forEach(AppInstance::awaitStarted);
            // The local job every second marks the time: the watch lasts that many of its runs.
            AppInstance first = instances.get(0);
            await().atMost(TestDelays.scaled(Duration.ofSeconds(seconds + 60)))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> first.lines().stream()
                                    .filter(line -> line.contains("RUN job=everySecond"))
                                    .count()
                            >= seconds);

            List<Run> runs = runs(instances);
            Map<String, List<Map<String, Object>>> history = history(url);
            report(runs, history);

            List<Run> cron = runs.stream()
                    .filter(run -> run.job().equals("reactiveCron"))
                    .toList();
            assertThat(cron).as("runs of the cron job").isNotEmpty();
            Map<String, List<String>> byFire = new LinkedHashMap<>();
            cron.forEach(run -> byFire.computeIfAbsent(run.cronFire(), fire -> new ArrayList<>())
                    .add(run.instance()));
            assertThat(byFire.entrySet().stream()
                            .filter(fire -> fire.getValue().size() > 1)
                            .map(Map.Entry::toString)
                            .toList())
                    .as("cron fires run more than once (fire=[instances]; ~ marks a fire read from the start time)")
                    .isEmpty();
            for (String job : JOBS) {
                assertThat(overlaps(runs, job))
                        .as("runs of %s that overlap another run", job)
                        .isEmpty();
            }
            assertThat(runs.stream()
                            .filter(run -> run.fire().equals("-"))
                            .map(Run::toString)
                            .toList())
                    .as("runs that saw no ClusteredJobs.currentFire()")
                    .isEmpty();
            for (String job : JOBS) {
                List<Map<String, Object>> rows = history.getOrDefault("reactiveJobs." + job, List.of());
                assertThat(rows).as("run history of reactiveJobs.%s", job).isNotEmpty();
                assertThat(rows.stream()
                                .filter(row -> {
                                    long millis = ((Number) row.get("duration_ms")).longValue();
                                    return millis < 2_900 || millis > 4_500;
                                })
                                .toList())
                        .as("history records of reactiveJobs.%s not lasting about 3 s", job)
                        .isEmpty();
            }
        } finally {
            instances.forEach(AppInstance::close);
        }
    }

    /** Pairs each instance's start and end lines of each job, in order. */
    private static List<Run> runs(List<AppInstance> instances) {
        List<Run> runs = new ArrayList<>();
        for (AppInstance app : instances) {
            Map<String, List<long[]>> open = new LinkedHashMap<>();
            Map<String, List<String>> fires = new LinkedHashMap<>();
            List<Run> own = new ArrayList<>();
            for (String line : app.lines()) {
                Matcher matcher = EVENT.matcher(line);
                if (!matcher.find()) {
                    continue;
                }
                String job = matcher.group(1);
                long at = Long.parseLong(matcher.group(3));
                if (matcher.group(2).equals("start")) {
                    open.computeIfAbsent(job, key -> new ArrayList<>()).add(new long[] {at});
                    fires.computeIfAbsent(job, key -> new ArrayList<>()).add(matcher.group(4));
                } else if (open.containsKey(job) && !open.get(job).isEmpty()) {
                    long start = open.get(job).remove(0)[0];
                    own.add(new Run(
                            job, matcher.group(5), start, at, fires.get(job).remove(0)));
                }
            }
            open.forEach((job, starts) -> {
                for (int i = 0; i < starts.size(); i++) {
                    own.add(new Run(
                            job, app.name(), starts.get(i)[0], 0, fires.get(job).get(i)));
                }
            });
            runs.addAll(own);
        }
        runs.sort(Comparator.comparingLong(Run::start));
        return runs;
    }

    /** Returns each run of {@code job} that started before the run before it (on any instance) ended. */
    private static List<String> overlaps(List<Run> runs, String job) {
        List<Run> own = runs.stream().filter(run -> run.job().equals(job)).toList();
        List<String> overlaps = new ArrayList<>();
        long busyUntil = Long.MIN_VALUE;
        Run holder = null;
        for (Run run : own) {
            if (run.start() < busyUntil) {
                overlaps.add(run + " started while " + holder + " ran");
            }
            long end = run.end() == 0 ? Long.MAX_VALUE : run.end();
            if (end > busyUntil) {
                busyUntil = end;
                holder = run;
            }
        }
        return overlaps;
    }

    private static Map<String, List<Map<String, Object>>> history(String url) throws SQLException {
        Map<String, List<Map<String, Object>>> byJob = new LinkedHashMap<>();
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT name, instance_name, fire_at, duration_ms, outcome"
                                + " FROM timed_jobs_run_history WHERE name LIKE 'reactiveJobs.%' AND outcome <> 'SKIPPED' ORDER BY started_at")) {
            while (rows.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("instance", rows.getString("instance_name"));
                row.put("fire_at", rows.getString("fire_at"));
                row.put("duration_ms", rows.getLong("duration_ms"));
                row.put("outcome", rows.getString("outcome"));
                byJob.computeIfAbsent(rows.getString("name"), name -> new ArrayList<>())
                        .add(row);
            }
        }
        return byJob;
    }

    private static void report(List<Run> runs, Map<String, List<Map<String, Object>>> history) {
        for (String job : JOBS) {
            System.out.printf("Reactive %s runs (instance, start ms, length ms, fire):%n", job);
            runs.stream()
                    .filter(run -> run.job().equals(job))
                    .forEach(run -> System.out.printf(
                            "  %s %d %s %s%n",
                            run.instance(),
                            run.start(),
                            run.end() == 0 ? "running" : Long.toString(run.end() - run.start()),
                            run.fire()));
            System.out.printf("  history: %s%n", history.getOrDefault("reactiveJobs." + job, List.of()));
        }
    }
}
