package io.timedjobs.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.acceptance.AcceptanceDatabases.Kind;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Test code only. A healthy cluster's logs: three instances with jobs and durable reminders started
 * together on one database, {@code acceptance.healthy.seconds} of fires (a minute under the
 * acceptance profile), a graceful stop of one (SIGTERM), its restart under the same {@code
 * timed-jobs.cluster.instance-name}, and a graceful stop of all. Nothing in that calls for an
 * operator, so no line may come at WARN or above.
 */
class HealthyLogsAcceptanceTest {

    private static final Pattern FIRE = Pattern.compile("RUN job=everySecond fire=(\\S+) instance=(\\S+)");

    /** On PostgreSQL, no line at WARN or above, and each fire of the cron job runs once. */
    @Test
    void shouldLogNoWarningInAHealthyRunOnPostgreSql() throws InterruptedException {
        run(Kind.POSTGRESQL);
    }

    /** On MariaDB, no line at WARN or above, and each fire of the cron job runs once. */
    @Test
    void shouldLogNoWarningInAHealthyRunOnMariaDb() throws InterruptedException {
        run(Kind.MARIADB);
    }

    /** On H2 (a TCP server shared by the instances), no line at WARN or above, and each fire runs once. */
    @Test
    @Tag("long")
    void shouldLogNoWarningInAHealthyRunOnH2() throws InterruptedException {
        run(Kind.H2);
    }

    private static void run(Kind kind) throws InterruptedException {
        long seconds = Long.getLong("acceptance.healthy.seconds", 12);
        List<String> database = AcceptanceDatabases.newDatabase(kind);
        String prefix = kind.name().toLowerCase(java.util.Locale.ROOT);
        List<AppInstance> all = new ArrayList<>();
        try {
            List<AppInstance> running = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                running.add(start(prefix + "-" + i, database));
            }
            all.addAll(running);
            running.forEach(AppInstance::awaitStarted);
            awaitFires(all, seconds);

            AppInstance leaving = running.remove(2);
            leaving.stop();
            AppInstance restarted = start(leaving.name(), database).awaitStarted();
            running.add(restarted);
            all.add(restarted);
            awaitFires(all, fires(all).size() + 5);
            for (AppInstance app : running) {
                app.stop();
            }

            Map<String, List<LogLine>> entries = new LinkedHashMap<>();
            all.forEach(app -> entries.put(app.log().getFileName().toString(), app.entries()));
            report(kind, entries);
            Map<String, List<String>> runsByFire = fires(all);
            assertThat(runsByFire.entrySet().stream()
                            .filter(fire -> fire.getValue().size() > 1)
                            .map(Map.Entry::toString)
                            .toList())
                    .as("fires of the cron job run more than once on %s", kind)
                    .isEmpty();
            assertThat(alarming(entries))
                    .as("lines at WARN or above (or outside Boot's pattern) on %s, alike ones counted together", kind)
                    .isEmpty();
        } finally {
            all.forEach(AppInstance::close);
        }
    }

    private static AppInstance start(String name, List<String> database) {
        List<String> args = new ArrayList<>(database);
        args.addAll(List.of("--spring.profiles.active=durable", "--timed-jobs.cluster.instance-name=" + name));
        return AppInstance.start(name, args);
    }

    /** Waits until the cron job has run {@code count} distinct fires across the instances. */
    private static void awaitFires(List<AppInstance> instances, long count) {
        await().atMost(TestDelays.scaled(Duration.ofSeconds(count + 60)))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> fires(instances).size() >= count);
    }

    /** Returns the instances that ran each fire of the cron job, by fire. */
    private static Map<String, List<String>> fires(List<AppInstance> instances) {
        Map<String, List<String>> byFire = new LinkedHashMap<>();
        for (AppInstance app : instances) {
            for (String line : app.lines()) {
                Matcher matcher = FIRE.matcher(line);
                if (matcher.find()) {
                    byFire.computeIfAbsent(matcher.group(1), fire -> new ArrayList<>())
                            .add(matcher.group(2));
                }
            }
        }
        return byFire;
    }

    /**
     * Returns the lines at WARN or above (or outside Boot's pattern) by log, level and message, digits
     * and hashes replaced so that alike lines count together, with their counts.
     */
    private static Map<String, Long> alarming(Map<String, List<LogLine>> entries) {
        Map<String, Long> alarming = new LinkedHashMap<>();
        entries.forEach((log, lines) -> lines.stream()
                .filter(LogLine::isAlarming)
                .forEach(entry -> alarming.merge(
                        log.replaceFirst("^\\d+-", "") + " " + entry.level() + " " + LogLine.shape(entry.message()),
                        1L,
                        Long::sum)));
        return alarming;
    }

    private static void report(Kind kind, Map<String, List<LogLine>> entries) {
        Map<String, Integer> total = LogLine.countByLevel(List.of());
        entries.forEach((log, lines) -> {
            Map<String, Integer> counts = LogLine.countByLevel(lines);
            counts.forEach((level, count) -> total.merge(level, count, Integer::sum));
            System.out.printf("Healthy run on %s, %s: %s%n", kind, log, counts);
        });
        System.out.printf("Healthy run on %s, all instances: %s%n", kind, total);
        alarming(entries).forEach((line, count) -> System.out.printf("  x%d %s%n", count, line));
    }
}
