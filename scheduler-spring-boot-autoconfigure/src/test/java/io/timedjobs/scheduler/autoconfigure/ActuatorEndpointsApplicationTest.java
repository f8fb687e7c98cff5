package io.timedjobs.scheduler.autoconfigure;

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
import org.springframework.core.env.Environment;

/** A user's web application with the actuator: /actuator/health and /actuator/info show timedJobs. */
@SpringBootTest(
        classes = ActuatorEndpointsApplicationTest.WebApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health,info",
            "management.endpoint.health.show-details=always",
            "timed-jobs.pool-size=2"
        })
class ActuatorEndpointsApplicationTest {

    @Autowired
    private Environment environment;

    private String get(String path) throws Exception {
        String port = environment.getRequiredProperty("local.server.port");
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    /** The health endpoint lists the timedJobs component, UP, with its details. */
    @Test
    void shouldShowTimedJobsInHealth() throws Exception {
        String timedJobs = jsonObject(get("/actuator/health"), "timedJobs");

        assertThat(timedJobs)
                .contains("\"status\":\"UP\"")
                .contains("\"queueDepth\":0")
                .contains("\"poolSize\":2")
                .contains("\"activeTasks\":0")
                .contains("\"lateness\":\"PT0S\"");
    }

    /** Returns the JSON object under the key, whatever order its fields come in. */
    private static String jsonObject(String json, String key) {
        int start = json.indexOf("\"" + key + "\":{");
        assertThat(start).as("%s in %s", key, json).isNotNegative();
        int depth = 0;
        for (int i = json.indexOf('{', start); i < json.length(); i++) {
            char c = json.charAt(i);
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            if (depth == 0) {
                return json.substring(start, i + 1);
            }
        }
        throw new AssertionError("Unbalanced JSON: " + json);
    }

    /** The info endpoint shows the scheduler's settings. */
    @Test
    void shouldShowTimedJobsInInfo() throws Exception {
        assertThat(get("/actuator/info")).contains("\"timedJobs\"").contains("\"misfirePolicy\":\"catch-up\"");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WebApplication {}
}
