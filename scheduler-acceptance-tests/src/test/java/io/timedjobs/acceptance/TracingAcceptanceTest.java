package io.timedjobs.acceptance;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Test code only. Durable tasks under Spring Boot's own tracing: the application has the
 * OpenTelemetry bridge and Boot's tracing and metrics auto-configuration, and declares no registry
 * or tracer of its own.
 */
class TracingAcceptanceTest {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * A reminder scheduled in a traced request stores that trace's traceparent, and its run logs
     * under the same trace id and is observed as {@code tasks.durable.execution}.
     */
    @Test
    void shouldCarryTheRequestsTraceIntoTheDurableTask() throws Exception {
        String url = AcceptanceDatabases.newPostgresUrl(AcceptanceDatabases.postgresPort());
        List<String> args = new ArrayList<>(AcceptanceDatabases.datasource(url));
        args.addAll(List.of("--spring.profiles.active=durable", "--timed-jobs.cluster.instance-name=traced-1"));
        try (AppInstance app = AppInstance.start("traced", args).awaitStarted()) {
            String traceId = HexFormat.of().formatHex(randomBytes(16));
            String traceparent = "00-" + traceId + "-" + HexFormat.of().formatHex(randomBytes(8)) + "-01";

            HttpResponse<String> scheduled = http.send(
                    HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + app.port() + "/reminders?key=traced&delay=PT8S"))
                            .header("traceparent", traceparent)
                            .timeout(Duration.ofSeconds(10))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(scheduled.statusCode()).as(scheduled.body()).isEqualTo(200);

            assertThat(app.awaitLine(Pattern.compile("SCHEDULE key=traced "), Duration.ofSeconds(5)))
                    .as("the request's own log line: Boot's tracing continued the trace sent")
                    .contains(traceId);
            String stored = storedTraceParent(url, "traced");
            String ran = app.awaitLine(Pattern.compile("REMINDER key=traced "), Duration.ofSeconds(30));
            HttpResponse<String> observed = http.send(
                    HttpRequest.newBuilder(URI.create(
                                    "http://127.0.0.1:" + app.port() + "/actuator/metrics/tasks.durable.execution"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            System.out.printf(
                    "Tracing: sent trace %s; trace_parent stored %s; run logged %s; tasks.durable.execution: HTTP %d%n",
                    traceId, stored, ran, observed.statusCode());

            assertThat(stored)
                    .as("timed_jobs_tasks.trace_parent of the pending reminder, scheduled under trace %s", traceId)
                    .isNotNull()
                    .contains(traceId);
            assertThat(ran)
                    .as("the reminder's run, logged with Boot's trace id")
                    .contains(traceId);
            assertThat(observed.statusCode())
                    .as("/actuator/metrics/tasks.durable.execution after a run: %s", observed.body())
                    .isEqualTo(200);
        }
    }

    private static String storedTraceParent(String url, String key) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT trace_parent, state FROM timed_jobs_tasks WHERE handler = 'reminders' AND task_key = ?")) {
            statement.setString(1, key);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as("the reminder's row").isTrue();
                assertThat(row.getString("state")).as("its state").isIn("PENDING", "CLAIMED");
                return row.getString("trace_parent");
            }
        }
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        ThreadLocalRandom.current().nextBytes(bytes);
        bytes[0] |= 1; // never all zeros, which W3C calls invalid
        return bytes;
    }
}
