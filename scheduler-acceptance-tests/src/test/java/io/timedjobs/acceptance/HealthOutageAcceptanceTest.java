package io.timedjobs.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.acceptance.HealthProbe.Answer;
import io.timedjobs.scheduler.testsupport.DatabaseLink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Test code only. The {@code timedJobs} health component of two instances on PostgreSQL, with
 * Boot's default Hikari pool, through an outage: the database's link is cut for {@code
 * acceptance.outage.seconds} (40 s under the acceptance profile) and restored, while the test asks
 * each instance's readiness group ({@code /actuator/health/readiness}, holding {@code timedJobs} as the
 * guide says) every 200 ms with a 1 s timeout, as a readiness
 * probe does, and watches {@code acceptance.after-outage.seconds} more (a minute under the profile).
 */
@Tag("long")
class HealthOutageAcceptanceTest {

    private static final long PROBE_MILLIS = 200;
    private static final long BEFORE_MILLIS = 8_000;
    private static final long PATIENT_PROBE_MILLIS = 1_000;

    /** How long after the cut an UP may still be seen: poll interval (1 s) + database timeout (2 s) + 1 s. */
    private static final long STALE_UP_MILLIS = 1_000 + 2_000 + 1_000;

    /**
     * With the database's server gone (connections closed and refused), every answer comes within
     * the probe's 1 s, none says UP later than poll interval + database timeout + 1 s into the
     * outage, and each instance is UP again after it.
     */
    @Test
    void shouldAnswerHealthPromptlyAndTruthfullyWhenTheDatabaseRefuses() throws Exception {
        run(DatabaseLink.Outage.REFUSED);
    }

    /**
     * With the network to the database silent (connections hang), every answer comes within the
     * probe's 1 s, none says UP later than poll interval + database timeout + 1 s into the outage,
     * and each instance is UP again after it.
     */
    @Test
    void shouldAnswerHealthPromptlyAndTruthfullyWhenTheDatabaseFallsSilent() throws Exception {
        run(DatabaseLink.Outage.SILENT);
    }

    private static void run(DatabaseLink.Outage kind) throws Exception {
        long outageMillis = Long.getLong("acceptance.outage.seconds", 12) * 1000;
        long afterMillis = Long.getLong("acceptance.after-outage.seconds", 20) * 1000;
        ScheduledExecutorService clock = Executors.newScheduledThreadPool(2);
        List<AppInstance> instances = new ArrayList<>();
        try (DatabaseLink link = new DatabaseLink(AcceptanceDatabases.postgresPort())) {
            List<String> database = AcceptanceDatabases.datasource(AcceptanceDatabases.newPostgresUrl(link.port()));
            for (int i = 1; i <= 2; i++) {
                List<String> args = new ArrayList<>(database);
                args.addAll(List.of(
                        "--spring.profiles.active=durable,outage", "--timed-jobs.cluster.instance-name=outage-" + i));
                instances.add(AppInstance.start(kind.name().toLowerCase(java.util.Locale.ROOT) + "-outage-" + i, args));
            }
            instances.forEach(AppInstance::awaitStarted);

            List<HealthProbe> probes = instances.stream()
                    .map(app ->
                            new HealthProbe(app.name(), app.port(), "/actuator/health/readiness", HealthProbe.TIMEOUT))
                    .toList();
            // Beside the readiness probes, one that waits a minute, to tell how long an answer really takes.
            List<HealthProbe> patient = instances.stream()
                    .map(app -> new HealthProbe(
                            app.name(), app.port(), "/actuator/health/readiness", Duration.ofMinutes(1)))
                    .toList();
            probes.forEach(HealthProbe::warmUp);
            long origin = System.nanoTime();
            probes.forEach(probe -> probe.measureFrom(origin));
            patient.forEach(probe -> probe.measureFrom(origin));
            CountDownLatch done = new CountDownLatch(1);
            long cutAt = BEFORE_MILLIS;
            long restoreAt = cutAt + outageMillis;
            long endAt = restoreAt + afterMillis;
            clock.scheduleAtFixedRate(() -> probes.forEach(HealthProbe::ask), 0, PROBE_MILLIS, TimeUnit.MILLISECONDS);
            clock.scheduleAtFixedRate(
                    () -> patient.forEach(HealthProbe::ask), 0, PATIENT_PROBE_MILLIS, TimeUnit.MILLISECONDS);
            clock.schedule(() -> step(() -> link.cut(kind)), cutAt, TimeUnit.MILLISECONDS);
            clock.schedule(() -> step(link::restore), restoreAt, TimeUnit.MILLISECONDS);
            clock.schedule(done::countDown, endAt + HealthProbe.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(done.await(endAt + 30_000, TimeUnit.MILLISECONDS)).isTrue();
            clock.shutdownNow();
            System.out.printf("Health through an outage (%s):%n", kind);
            patient.stream()
                    .flatMap(probe -> probe.answers().stream())
                    .filter(answer -> answer.askedAt() >= cutAt)
                    .max(java.util.Comparator.comparingLong(Answer::millis))
                    .ifPresent(worst -> System.out.printf(
                            "  slowest answer to a probe that waits up to a minute, from the cut on: %s%n", worst));

            List<Answer> answers =
                    probes.stream().flatMap(probe -> probe.answers().stream()).toList();
            report(answers, cutAt, restoreAt);

            assertThat(answers.stream()
                            .filter(answer ->
                                    answer.askedAt() < cutAt && !answer.status().equals("UP/200"))
                            .toList())
                    .as("answers before the cut that are not UP")
                    .isEmpty();
            assertThat(answers.stream()
                            .filter(answer -> answer.millis() > HealthProbe.TIMEOUT.toMillis()
                                    || answer.status().equals("TIMEOUT")
                                    || answer.status().equals("NO_ANSWER"))
                            .toList())
                    .as(
                            "answers slower than the probe's %d ms, or none (of %d)",
                            HealthProbe.TIMEOUT.toMillis(), answers.size())
                    .isEmpty();
            List<Answer> outage = answers.stream()
                    .filter(answer -> answer.askedAt() > cutAt + STALE_UP_MILLIS && answer.askedAt() < restoreAt)
                    .toList();
            assertThat(outage).as("answers during the outage").isNotEmpty();
            List<Answer> everyAnswer = new ArrayList<>(answers);
            patient.forEach(probe -> everyAnswer.addAll(probe.answers()));
            assertThat(everyAnswer.stream()
                            .filter(answer -> answer.status().startsWith("UP")
                                    && answer.askedAt() + answer.millis() > cutAt + STALE_UP_MILLIS
                                    && answer.askedAt() + answer.millis() < restoreAt)
                            .toList())
                    .as(
                            "UP answers given more than %d ms after the cut, before the link was restored (any probe)",
                            STALE_UP_MILLIS)
                    .isEmpty();
            for (HealthProbe probe : probes) {
                List<Answer> own = probe.answers();
                assertThat(own.get(own.size() - 1).status())
                        .as("the last answer, %d ms after the link was restored", endAt - restoreAt)
                        .isEqualTo("UP/200");
            }
        } finally {
            clock.shutdownNow();
            for (AppInstance app : instances) {
                app.close();
            }
        }
    }

    private static void step(Step step) {
        try {
            step.run();
        } catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void report(List<Answer> answers, long cutAt, long restoreAt) {
        System.out.printf("  cut at %d ms, restored at %d ms%n", cutAt, restoreAt);
        for (String phase : List.of("before", "outage", "after")) {
            List<Long> millis = answers.stream()
                    .filter(answer -> phase(answer, cutAt, restoreAt).equals(phase))
                    .map(Answer::millis)
                    .sorted()
                    .toList();
            if (!millis.isEmpty()) {
                System.out.printf(
                        "  %-6s %4d answers: p50 %d ms, p90 %d ms, p99 %d ms, worst %d ms%n",
                        phase,
                        millis.size(),
                        millis.get(millis.size() / 2),
                        millis.get((int) (millis.size() * 0.9)),
                        millis.get((int) (millis.size() * 0.99)),
                        millis.get(millis.size() - 1));
            }
        }
        answers.stream()
                .filter(answer -> answer.askedAt() >= cutAt)
                .max(java.util.Comparator.comparingLong(Answer::millis))
                .ifPresent(worst -> System.out.printf("  worst from the cut on: %s%n", worst));
        answers.stream().collect(Collectors.groupingBy(Answer::instance)).forEach((instance, own) -> {
            System.out.printf("  %s, statuses from the cut on (ms after the cut: status x count):%n", instance);
            String last = null;
            int count = 0;
            long since = 0;
            StringBuilder line = new StringBuilder("   ");
            for (Answer answer : own.stream()
                    .filter(answer -> answer.askedAt() >= cutAt)
                    .sorted(java.util.Comparator.comparingLong(Answer::askedAt))
                    .toList()) {
                if (!answer.status().equals(last)) {
                    if (last != null) {
                        line.append(' ')
                                .append(since)
                                .append(": ")
                                .append(last)
                                .append(" x")
                                .append(count)
                                .append(';');
                    }
                    last = answer.status();
                    count = 0;
                    since = answer.askedAt() - cutAt;
                }
                count++;
            }
            if (last != null) {
                line.append(' ')
                        .append(since)
                        .append(": ")
                        .append(last)
                        .append(" x")
                        .append(count);
            }
            System.out.println(line);
        });
    }

    private static String phase(Answer answer, long cutAt, long restoreAt) {
        return answer.askedAt() < cutAt ? "before" : answer.askedAt() < restoreAt ? "outage" : "after";
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }
}
