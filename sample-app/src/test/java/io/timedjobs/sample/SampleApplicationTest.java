package io.timedjobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskTesting;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.Environment;

/** The sample starts, its jobs run on the starter's threads, and its HTTP API and actuator answer. */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "sample.jobs.heartbeat-rate=100ms",
            "sample.jobs.cleanup-delay=100ms",
            "sample.jobs.report-cron=* * * * * *",
            "sample.jobs.warm-up-delay=200ms",
            "spring.datasource.url=jdbc:h2:mem:sample-application-test",
            "timed-jobs.cluster.poll-interval=100ms"
        })
@ExtendWith(OutputCaptureExtension.class)
class SampleApplicationTest {

    private static final Duration LONG = Duration.ofMillis(
            Math.round(20_000 * Double.parseDouble(System.getProperty("timedjobs.test.delayScale", "1"))));

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private Environment environment;

    @Autowired
    private JobActivity activity;

    @Autowired
    private ReminderService reminders;

    @Autowired
    private DurableTaskEngine durableTasks;

    private URI uri(String path) {
        return URI.create("http://localhost:" + environment.getProperty("local.server.port") + path);
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(uri(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Every job kind runs, on the starter's worker threads. */
    @Test
    void shouldRunEveryJobOnTimedJobsThreads() {
        await().atMost(LONG)
                .until(() -> activity.lastRuns()
                        .keySet()
                        .containsAll(java.util.List.of("heartbeat", "cleanup", "report", "warm-up")));

        assertThat(activity.lastRuns().values())
                .allSatisfy(run -> assertThat(run.lastThread()).startsWith("timed-jobs-"));
    }

    /** A reminder posted over HTTP is listed while pending and fires at its time. */
    @Test
    void shouldScheduleRemindersOverHttp() throws Exception {
        HttpResponse<String> later = post("/reminders", "{\"message\": \"review the release\", \"delay\": \"PT1H\"}");
        assertThat(later.statusCode()).isEqualTo(201);
        assertThat(later.headers().firstValue("Location"))
                .hasValueSatisfying(location -> assertThat(location).startsWith("/reminders/"));
        assertThat(get("/reminders").body()).contains("review the release");

        long firedBefore = reminders.firedCount();
        HttpResponse<String> soon = post("/reminders", "{\"message\": \"stretch\", \"delay\": \"PT0.1S\"}");
        assertThat(soon.statusCode()).isEqualTo(201);

        await().atMost(LONG).until(() -> reminders.firedCount() > firedBefore);
        await().atMost(LONG).until(() -> !get("/reminders").body().contains("stretch"));
        assertThat(get("/reminders").body()).contains("review the release");
    }

    /**
     * With tracing on, a reminder's log line carries the trace id of the request that scheduled it:
     * the durable run continues the request's trace.
     */
    @Test
    void shouldLogTheReminderUnderTheTraceOfItsRequest(CapturedOutput output) throws Exception {
        long firedBefore = reminders.firedCount();
        HttpResponse<String> soon = post("/reminders", "{\"message\": \"traced\", \"delay\": \"PT0.1S\"}");
        assertThat(soon.statusCode()).isEqualTo(201);
        String id = soon.headers().firstValue("Location").orElseThrow().substring("/reminders/".length());

        await().atMost(LONG)
                .until(() ->
                        reminders.firedCount() > firedBefore && output.getOut().contains("Reminder " + id));
        String scheduled = traceIdOfLine(output.getOut(), "Scheduled reminder " + id);
        String fired = traceIdOfLine(output.getOut(), "Reminder " + id);
        assertThat(fired).isEqualTo(scheduled);
    }

    /** The 32-hex trace id in the log line that contains {@code text}. */
    private static String traceIdOfLine(String log, String text) {
        String line = log.lines()
                .filter(candidate -> candidate.contains(text))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no log line with " + text));
        Matcher traceId = Pattern.compile("\\b[0-9a-f]{32}\\b").matcher(line);
        assertThat(traceId.find()).as("a trace id in: " + line).isTrue();
        return traceId.group();
    }

    /** A reminder due in an hour fires now in a test, through the durable tasks' test support. */
    @Test
    void shouldFireAReminderNowInATest() {
        ReminderService.Reminder reminder = reminders.schedule("in an hour", Duration.ofHours(1));
        long firedBefore = reminders.firedCount();

        assertThat(DurableTaskTesting.runNow(
                        durableTasks, ReminderHandler.NAME, reminder.id().toString()))
                .isTrue();

        assertThat(reminders.firedCount()).isEqualTo(firedBefore + 1);
        assertThat(reminders.pending()).extracting(ReminderService.Reminder::id).doesNotContain(reminder.id());
    }

    /** Bad reminders are refused with 400 and a reason. */
    @Test
    void shouldRefuseBadReminders() throws Exception {
        assertThat(post("/reminders", "{\"message\": \"\", \"delay\": \"PT10S\"}")
                        .statusCode())
                .isEqualTo(400);
        assertThat(post("/reminders", "{\"message\": \"x\", \"delay\": \"-PT10S\"}")
                        .statusCode())
                .isEqualTo(400);
        assertThat(post("/reminders", "{\"message\": \"x\", \"delay\": \"P2D\"}")
                        .statusCode())
                .isEqualTo(400);
        assertThat(post("/reminders", "{\"message\": \"x\"}").statusCode()).isEqualTo(400);
        assertThat(post("/reminders", "{\"message\": \"x\", \"delay\": \"soon\"}")
                        .statusCode())
                .isEqualTo(400);
        HttpResponse<String> blank = post("/reminders", "{\"message\": \" \", \"delay\": \"PT10S\"}");
        assertThat(blank.body()).contains("message must not be blank");
    }

    /**
     * The actuator answers for the scheduler's meters, shows the timedJobs health component with its
     * details and the scheduler's settings in info, and lists the scheduled jobs.
     */
    @Test
    void shouldExposeActuatorEndpoints() throws Exception {
        HttpResponse<String> queueDepth = get("/actuator/metrics/scheduler.queue.depth");
        assertThat(queueDepth.statusCode()).isEqualTo(200);
        assertThat(queueDepth.body()).contains("\"scheduler.queue.depth\"").contains("taskScheduler");

        assertThat(get("/actuator/metrics/scheduler.task.lateness").statusCode())
                .isEqualTo(200);
        assertThat(get("/actuator/health").body()).contains("UP");

        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body())
                .contains("\"timedJobs\"")
                .contains("\"queueDepth\"")
                .contains("\"poolSize\"");

        HttpResponse<String> info = get("/actuator/info");
        assertThat(info.statusCode()).isEqualTo(200);
        assertThat(info.body()).contains("\"timedJobs\"").contains("\"awaitTerminationPeriod\"");

        HttpResponse<String> scheduledTasks = get("/actuator/scheduledtasks");
        assertThat(scheduledTasks.statusCode()).isEqualTo(200);
        assertThat(scheduledTasks.body())
                .contains("io.timedjobs.sample.SampleJobs.report")
                .contains("nextExecution");
    }
}
