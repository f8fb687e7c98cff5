package io.timedjobs.scheduler.autoconfigure;

import static io.timedjobs.scheduler.autoconfigure.BootObservabilityTest.scheduleInARequest;
import static io.timedjobs.scheduler.autoconfigure.BootObservabilityTest.storedTraceParent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.timedjobs.scheduler.autoconfigure.BootObservabilityTest.Mails;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Durable tasks traced with Brave as Spring Boot wires it, as {@link BootObservabilityTest} does
 * with OpenTelemetry: the application of that test, Boot's auto-configurations, no registry or
 * tracer declared by hand.
 *
 * <p>Brave's bridge is on the class path of the surefire execution {@code brave} alone (see the
 * POM): beside OpenTelemetry's, Spring Boot 3.5 finds two propagators and every other application
 * test of this module would fail to start. Elsewhere this test is skipped.
 */
class BraveObservabilityTest {

    /** Hides OpenTelemetry and Prometheus (see {@link BootObservabilityTest}), so that Boot wires Brave. */
    private static final FilteredClassLoader BRAVE_ONLY = new FilteredClassLoader(
            "io.micrometer.prometheusmetrics.", "io.prometheus.", "io.opentelemetry.", "io.micrometer.tracing.otel.");

    /** Where Brave's spans go: a span handler bean, which Boot adds to Brave's tracing. */
    @Configuration(proxyBeanMethods = false)
    static class BraveExport {
        @Bean
        BraveSpans braveSpans() {
            return new BraveSpans();
        }
    }

    /** Brave's finished spans, in memory. */
    static final class BraveSpans extends SpanHandler {
        final List<MutableSpan> finished = new CopyOnWriteArrayList<>();

        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
            if (cause == Cause.FINISHED) {
                finished.add(span);
            }
            return true;
        }
    }

    /**
     * With the Brave bridge, a task scheduled inside a request's span stores the scheduling span's
     * {@code traceparent} and runs as that span's child, in the request's trace.
     */
    @Test
    void shouldTraceDurableTasksWithBootsBraveTracing() {
        assumeTrue(
                ClassUtils.isPresent("io.micrometer.tracing.brave.bridge.BraveTracer", null),
                "Brave's bridge is on the class path of the surefire execution 'brave' only");
        BootObservabilityTest.bootApplication()
                .withClassLoader(BRAVE_ONLY)
                .withUserConfiguration(BraveExport.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    scheduleInARequest(context);
                    assertThat(storedTraceParent(context, "reminder"))
                            .as("the scheduling call's trace context, stored with the task")
                            .isNotNull();

                    Mails mails = context.getBean(Mails.class);
                    BraveSpans spans = context.getBean(BraveSpans.class);
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> mails.traceIds.size() == 1
                                    && spans.finished.stream().anyMatch(span -> "durable mails".equals(span.name())));
                    MutableSpan request = span(spans, "http.server.requests", null);
                    MutableSpan scheduledNow = span(spans, "durable schedule mails", "welcome");
                    MutableSpan scheduledLater = span(spans, "durable schedule mails", "reminder");
                    MutableSpan run = span(spans, "durable mails", "welcome");
                    assertThat(scheduledNow.parentId()).isEqualTo(request.id());
                    assertThat(run.traceId()).isEqualTo(request.traceId());
                    assertThat(run.parentId()).isEqualTo(scheduledNow.id());
                    assertThat(mails.traceIds).containsExactly(request.traceId());
                    assertThat(storedTraceParent(context, "reminder"))
                            .startsWith("00-" + request.traceId() + "-" + scheduledLater.id() + "-");
                });
    }

    private static MutableSpan span(BraveSpans spans, String name, String key) {
        return spans.finished.stream()
                .filter(span -> name.equals(span.name()))
                .filter(span -> key == null || key.equals(span.tag("key")))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " " + key + " in " + spans.finished));
    }
}
