package io.timedjobs.scheduler.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** A user's web application with the page switched on and the endpoint exposed, over HTTP. */
@SpringBootTest(
        classes = DashboardApplicationTest.WebApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=timedjobs",
            "timed-jobs.dashboard.enabled=true",
            "timed-jobs.shutdown.execute-existing-delayed-tasks=false"
        })
class DashboardApplicationTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private Environment environment;

    private HttpResponse<String> send(HttpRequest.Builder request, String path) throws Exception {
        URI uri = URI.create("http://localhost:" + environment.getRequiredProperty("local.server.port") + path);
        return http.send(request.uri(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder().GET(), path);
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        return send(
                HttpRequest.newBuilder()
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)),
                path);
    }

    /** The page is served at /timed-jobs as HTML, and its data beside it as JSON. */
    @Test
    void shouldServePageAndData() throws Exception {
        HttpResponse<String> page = get("/timed-jobs");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        assertThat(page.body()).contains("<title>Timed Jobs</title>");

        HttpResponse<String> data = get("/timed-jobs/data");
        assertThat(data.statusCode()).isEqualTo(200);
        assertThat(data.body())
                .contains("\"name\":\"nightly.clean\"")
                // with a DataSource on the class path the job is clustered, and its zone is named
                .contains("\"trigger\":\"cron 0 0 2 * * *")
                .contains("\"queueDepth\":");
    }

    /** The endpoint reads the same model and takes its write operations over HTTP. */
    @Test
    void shouldAnswerEndpointOverHttp() throws Exception {
        assertThat(get("/actuator/timedjobs").body()).contains("\"name\":\"nightly.clean\"");

        HttpResponse<String> paused = post("/actuator/timedjobs/nightly.clean", "{\"action\":\"pause\"}");
        assertThat(paused.statusCode()).isEqualTo(200);
        assertThat(paused.body()).contains("\"done\":true");
        assertThat(get("/timed-jobs/data").body()).contains("\"paused\":true");
        assertThat(post("/actuator/timedjobs/nightly.clean", "{\"action\":\"resume\"}")
                        .body())
                .contains("\"done\":true");

        HttpResponse<String> missing = post("/actuator/timedjobs/nightly.missing", "{\"action\":\"run\"}");
        assertThat(missing.body()).contains("\"done\":false").contains("No repeating job named 'nightly.missing'");
        HttpResponse<String> cancel = send(HttpRequest.newBuilder().DELETE(), "/actuator/timedjobs/mail/42");
        assertThat(cancel.body()).contains("\"done\":false");
    }

    /**
     * The history search answers over HTTP with every parameter optional, a local job's failure
     * without its stack trace in a page and with it at its fire.
     */
    @Test
    void shouldSearchHistoryOverHttp() throws Exception {
        await().atMost(TestDelays.LONG)
                .until(() -> get("/actuator/timedjobs/history?job=flaky.check&outcome=FAILED")
                        .body()
                        .contains("\"outcome\":\"FAILED\""));
        HttpResponse<String> failed = get("/actuator/timedjobs/history?job=flaky.check&outcome=FAILED&limit=1");
        assertThat(failed.statusCode()).isEqualTo(200);
        assertThat(failed.body())
                .contains("\"source\":\"LOCAL\"")
                .contains("java.lang.IllegalStateException: no disk")
                .doesNotContain("\"stackTrace\":\"java.lang.IllegalStateException");
        java.util.regex.Matcher fire =
                java.util.regex.Pattern.compile("\"fireAt\":\"([^\"]+)\"").matcher(failed.body());
        assertThat(fire.find()).isTrue();
        assertThat(get("/actuator/timedjobs/history?job=flaky.check&at=" + fire.group(1))
                        .body())
                .contains("\"stackTrace\":\"java.lang.IllegalStateException: no disk")
                .contains("at io.timedjobs.scheduler.dashboard.DashboardApplicationTest$Flaky.check");

        HttpResponse<String> any = get("/actuator/timedjobs/history");
        assertThat(any.statusCode()).isEqualTo(200);
        assertThat(any.body()).contains("\"source\":\"CLUSTER\"").contains("\"runs\":[");
        assertThat(get("/timed-jobs/history?job=flaky.check").body()).contains("\"source\":\"LOCAL\"");
        assertThat(get("/actuator/timedjobs").body()).contains("\"name\":\"nightly.clean\"");
    }

    /**
     * One record opens whole by the id a page gave it, on the endpoint and beside the page: 404 for
     * an id no record has, 400 for one of no record's form or beside another parameter.
     */
    @Test
    void shouldOpenOneRecordByIdOverHttp() throws Exception {
        await().atMost(TestDelays.LONG)
                .until(() -> get("/actuator/timedjobs/history?job=flaky.check&outcome=FAILED")
                        .body()
                        .contains("\"outcome\":\"FAILED\""));
        java.util.regex.Matcher id = java.util.regex.Pattern.compile("\"id\":\"(L[0-9]+)\"")
                .matcher(get("/actuator/timedjobs/history?job=flaky.check&outcome=FAILED&limit=1")
                        .body());
        assertThat(id.find()).isTrue();
        for (String path : new String[] {"/actuator/timedjobs/history?", "/timed-jobs/history?"}) {
            HttpResponse<String> opened = get(path + "id=" + id.group(1));
            assertThat(opened.statusCode()).as(path).isEqualTo(200);
            assertThat(opened.body())
                    .as(path)
                    .contains("\"stackTrace\":\"java.lang.IllegalStateException: no disk")
                    .contains("\"id\":\"" + id.group(1) + "\"");
            assertThat(get(path + "id=L999999999").statusCode()).as(path).isEqualTo(404);
            assertThat(get(path + "id=C999999999").statusCode()).as(path).isEqualTo(404);
            HttpResponse<String> malformed = get(path + "id=X12");
            assertThat(malformed.statusCode()).as(path).isEqualTo(400);
            assertThat(malformed.body()).as(path).contains("id 'X12'");
            assertThat(get(path + "id=" + id.group(1) + "&job=flaky.check").statusCode())
                    .as(path)
                    .isEqualTo(400);
        }
    }

    /**
     * A bad parameter answers 400 with a message naming it, on the endpoint and beside the page; a
     * read the endpoint does not have answers 404.
     */
    @Test
    void shouldRefuseBadHistoryParametersWith400() throws Exception {
        for (String query : new String[] {"outcome=EXPLODED", "limit=0", "limit=ten", "from=yesterday", "cursor=Zed"}) {
            for (String path : new String[] {"/actuator/timedjobs/history?", "/timed-jobs/history?"}) {
                HttpResponse<String> refused = get(path + query + "&job=flaky.check");
                assertThat(refused.statusCode()).as(path + query).isEqualTo(400);
                assertThat(refused.body())
                        .as(path + query)
                        .contains("\"error\":\"")
                        .contains(query.split("=")[0]);
            }
        }
        HttpResponse<String> other = get("/actuator/timedjobs/elsewhere");
        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(other.body()).contains("Unknown read 'elsewhere'");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class WebApplication {
        @Bean
        Nightly nightly() {
            return new Nightly();
        }

        @Bean
        Flaky flaky() {
            return new Flaky();
        }
    }

    /** A job of this instance only, that fails at once. */
    static class Flaky {
        @RunOnEveryInstance
        @Scheduled(fixedRate = 3_600_000)
        void check() {
            throw new IllegalStateException("no disk");
        }
    }

    static class Nightly {
        @Scheduled(cron = "0 0 2 * * *")
        void clean() {}
    }
}
