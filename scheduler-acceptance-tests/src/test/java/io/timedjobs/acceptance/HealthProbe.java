package io.timedjobs.acceptance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test code only; thread-safe. Asks one application's health component, as a readiness probe does:
 * an HTTP GET with a timeout (1 s for a readiness probe), every answer (or its absence) recorded with when it was asked
 * and how long it took.
 */
final class HealthProbe {

    /** A readiness probe's timeout: an answer slower than this is none. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);

    private static final Pattern STATUS = Pattern.compile("\"status\"\\s*:\\s*\"([A-Z_]+)\"");

    /** One probe: asked at {@code askedAt} ms from the run's start, answered {@code status} in {@code millis}. */
    record Answer(String instance, long askedAt, long millis, String status) {}

    private final String instance;
    private final Duration timeout;
    private final HttpClient http;
    private final URI uri;
    /** Where the run's clock starts ({@link System#nanoTime()}); set once warmed up. */
    private volatile long origin;

    private final List<Answer> answers = new CopyOnWriteArrayList<>();

    /** A probe of {@code path} on {@code port} that waits at most {@code timeout} for each answer. */
    HealthProbe(String instance, int port, String path, Duration timeout) {
        this.instance = instance;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
        this.uri = URI.create("http://127.0.0.1:" + port + path);
    }

    /** Asks until an answer comes within the timeout, at most 60 s: the first answers of a new JVM are slow. */
    void warmUp() {
        org.awaitility.Awaitility.await()
                .atMost(io.timedjobs.scheduler.testsupport.TestDelays.scaled(Duration.ofSeconds(60)))
                .ignoreExceptions()
                .until(() -> http.send(
                                        HttpRequest.newBuilder(uri)
                                                .timeout(TIMEOUT)
                                                .build(),
                                        HttpResponse.BodyHandlers.ofString())
                                .statusCode()
                        == 200);
    }

    /** Counts the times of the answers from {@code originNanos} on. */
    void measureFrom(long originNanos) {
        origin = originNanos;
    }

    /** Asks once, without blocking; the answer is recorded when it comes, or as TIMEOUT after the timeout. */
    void ask() {
        long asked = System.nanoTime();
        http.sendAsync(HttpRequest.newBuilder(uri).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString())
                .whenComplete((response, failure) -> {
                    long millis = (System.nanoTime() - asked) / 1_000_000;
                    String status;
                    if (failure != null) {
                        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                        status = cause instanceof java.net.http.HttpTimeoutException ? "TIMEOUT" : "NO_ANSWER";
                    } else {
                        status = topLevelStatus(response.body()) + "/" + response.statusCode();
                    }
                    answers.add(new Answer(instance, (asked - origin) / 1_000_000, millis, status));
                });
    }

    /**
     * Returns the status of the whole answer, not of a component: the {@code "status"} key at the
     * outermost level of the JSON (Jackson 3 writes a group's {@code components}, with their own
     * statuses, before it), or "?" when there is none.
     */
    static String topLevelStatus(String body) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            } else if (c == '"') {
                if (depth == 1 && body.startsWith("\"status\"", i)) {
                    Matcher matcher = STATUS.matcher(body).region(i, body.length());
                    if (matcher.lookingAt()) {
                        return matcher.group(1);
                    }
                }
                inString = true;
            }
        }
        return "?";
    }

    List<Answer> answers() {
        return answers.stream()
                .sorted(java.util.Comparator.comparingLong(Answer::askedAt))
                .toList();
    }
}
