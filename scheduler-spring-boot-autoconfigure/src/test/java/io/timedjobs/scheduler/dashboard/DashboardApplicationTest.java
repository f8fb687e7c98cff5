package io.timedjobs.scheduler.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

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

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class WebApplication {
        @Bean
        Nightly nightly() {
            return new Nightly();
        }
    }

    static class Nightly {
        @Scheduled(cron = "0 0 2 * * *")
        void clean() {}
    }
}
