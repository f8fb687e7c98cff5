package io.timedjobs.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One test thread calls; the socket's thread answers: a minimal client of Chromium's DevTools
 * protocol over the JDK's WebSocket, for the page target of a browser started with {@code
 * --remote-debugging-port=0}. It sends a method, waits for the answer of the same id within the
 * timeout, and reads a script's value when it is a plain string, number or boolean (no JSON
 * library needed).
 */
final class DevTools implements AutoCloseable {

    private static final Pattern PAGE_SOCKET = Pattern.compile(
            "\"type\"\\s*:\\s*\"page\".*?\"webSocketDebuggerUrl\"\\s*:\\s*\"(ws://[^\"]+)\"", Pattern.DOTALL);
    private static final Pattern ID = Pattern.compile("^\\{\"id\":(\\d+),");
    private static final Pattern VALUE = Pattern.compile("\"value\":(\"[^\"\\\\]*\"|true|false|-?[0-9.eE+-]+)");

    /** How long between two looks at the page while waiting for it. */
    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final WebSocket socket;
    private final Duration timeout;
    private final AtomicInteger ids = new AtomicInteger();

    /** Answers awaited by id; the socket's thread completes them. */
    private final Map<Integer, CompletableFuture<String>> answers;

    private DevTools(WebSocket socket, Duration timeout, Map<Integer, CompletableFuture<String>> answers) {
        this.socket = socket;
        this.timeout = timeout;
        this.answers = answers;
    }

    /** Connects to the page of the browser whose profile is this directory, once it listens. */
    static DevTools attach(Path profile, Duration timeout) throws IOException, InterruptedException {
        Path portFile = profile.resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> lines = List.of();
        while (lines.isEmpty() || lines.get(0).isBlank()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Chromium did not open its DevTools port within " + timeout);
            }
            LockSupport.parkNanos(PAUSE_NANOS);
            if (Files.exists(portFile)) {
                lines = Files.readAllLines(portFile, StandardCharsets.UTF_8);
            }
        }
        HttpClient http = HttpClient.newHttpClient();
        String targets = http.send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + lines.get(0).strip() + "/json/list"))
                                .timeout(timeout)
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher page = PAGE_SOCKET.matcher(targets);
        if (!page.find()) {
            throw new IllegalStateException("Chromium lists no page to attach to: " + targets);
        }
        Map<Integer, CompletableFuture<String>> answers = new ConcurrentHashMap<>();
        WebSocket socket =
                join(http.newWebSocketBuilder().buildAsync(URI.create(page.group(1)), new Answers(answers)), timeout);
        return new DevTools(socket, timeout, answers);
    }

    /** Completes each awaited answer with the message of its id, once the message is whole. */
    private static final class Answers implements WebSocket.Listener {
        private final Map<Integer, CompletableFuture<String>> answers;
        private final StringBuilder message = new StringBuilder();

        Answers(Map<Integer, CompletableFuture<String>> answers) {
            this.answers = answers;
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            message.append(data);
            if (last) {
                String text = message.toString();
                message.setLength(0);
                Matcher id = ID.matcher(text);
                if (id.find()) {
                    CompletableFuture<String> answer = answers.remove(Integer.parseInt(id.group(1)));
                    if (answer != null) {
                        answer.complete(text);
                    }
                }
            }
            webSocket.request(1);
            return null;
        }
    }

    /** Calls a method with its parameters (a JSON object) and returns the answer's JSON. */
    String call(String method, String params) throws InterruptedException {
        int id = ids.incrementAndGet();
        CompletableFuture<String> answer = new CompletableFuture<>();
        answers.put(id, answer);
        join(
                socket.sendText("{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + params + "}", true),
                timeout);
        String text = join(answer, timeout);
        if (text.contains("\"error\":")) {
            throw new IllegalStateException(method + " failed: " + text);
        }
        return text;
    }

    /** Evaluates a script in the page and returns its value as text ({@code "undefined"} if it has none). */
    String evaluate(String script) throws InterruptedException {
        String escaped = script.replace("\\", "\\\\").replace("\"", "\\\"");
        String answer = call("Runtime.evaluate", "{\"expression\":\"" + escaped + "\",\"returnByValue\":true}");
        Matcher value = VALUE.matcher(answer);
        if (!value.find()) {
            return "undefined";
        }
        String found = value.group(1);
        return found.startsWith("\"") ? found.substring(1, found.length() - 1) : found;
    }

    /** Waits a little between two looks at the page. */
    void pause() {
        LockSupport.parkNanos(PAUSE_NANOS);
    }

    private static <T> T join(CompletableFuture<T> future, Duration timeout) throws InterruptedException {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("DevTools call failed", e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("No answer from Chromium within " + timeout, e);
        }
    }

    @Override
    public void close() {
        socket.abort();
    }
}
