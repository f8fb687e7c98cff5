package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.spring.JobName;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Durable tasks and clustered runs observed as Spring Boot wires observability itself: every
 * auto-configuration on the class path, as {@code @SpringBootApplication} loads them, and no
 * observation registry or tracer declared by hand. The tracer is chosen as an application chooses
 * it, by the bridge on its class path: here OpenTelemetry's (Brave's is in {@link
 * BraveObservabilityTest}).
 */
class BootObservabilityTest {

    /*
     * Each context also hides Prometheus (its registry and its client), as an application without
     * it has neither: with them, Boot's Prometheus exemplars auto-configuration links the meter
     * registry's auto-configuration to the tracing ones and so happens to order Boot's observation
     * auto-configuration before the cluster's, which would hide a missing order of our own.
     */

    /** Hides Brave, so that Boot wires OpenTelemetry. */
    private static final FilteredClassLoader OPEN_TELEMETRY_ONLY = new FilteredClassLoader(
            "io.micrometer.prometheusmetrics.", "io.prometheus.", "brave.", "io.micrometer.tracing.brave.");

    /** Hides Micrometer Tracing: Boot's observation registry gets its meter handler only. */
    static final FilteredClassLoader NO_TRACER = new FilteredClassLoader(
            "io.micrometer.prometheusmetrics.",
            "io.prometheus.",
            "io.micrometer.tracing.",
            "brave.",
            "io.opentelemetry.");

    private final ApplicationContextRunner runner = bootApplication();

    /** The user's application under Boot's auto-configuration, with settings that keep the tests short. */
    static ApplicationContextRunner bootApplication() {
        return new ApplicationContextRunner()
                .withUserConfiguration(Application.class)
                .withPropertyValues(
                        "management.tracing.sampling.probability=1.0",
                        // Spring Boot 4, then 3.5: export finished spans without the default 5 s wait.
                        "management.opentelemetry.tracing.export.schedule-delay=100ms",
                        "management.tracing.opentelemetry.export.schedule-delay=100ms",
                        "timed-jobs.cluster.poll-interval=100ms",
                        "timed-jobs.cluster.lookahead=1s",
                        "timed-jobs.cluster.lease=2s");
    }

    /** A user's application: a database and a durable task handler, the rest from Boot. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        @Bean
        Mails mails(ObjectProvider<Tracer> tracer) {
            return new Mails(tracer);
        }
    }

    /** A handler that keeps the trace id it runs under, read from whichever tracer Boot made. */
    static final class Mails implements DurableTaskHandler<String> {
        final List<String> traceIds = new CopyOnWriteArrayList<>();
        private final ObjectProvider<Tracer> tracer;

        Mails(ObjectProvider<Tracer> tracer) {
            this.tracer = tracer;
        }

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            Tracer current = tracer.getIfAvailable();
            traceIds.add(
                    current == null || current.currentSpan() == null
                            ? "none"
                            : current.currentSpan().context().traceId());
        }
    }

    /** Where OpenTelemetry's spans go: an exporter bean, as an application declares its own. */
    @Configuration(proxyBeanMethods = false)
    static class OpenTelemetryExport {
        @Bean
        InMemorySpanExporter spanExporter() {
            return InMemorySpanExporter.create();
        }
    }

    /** A clustered {@code @Scheduled} job, observed by Boot's scheduled-tasks observation. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class ClusteredJob {
        @Bean
        Report report() {
            return new Report();
        }
    }

    static class Report {
        final List<Instant> fires = new CopyOnWriteArrayList<>();

        @Scheduled(fixedRate = 300)
        @JobName("report")
        void report() {
            fires.add(ClusteredJobs.currentFire());
        }
    }

    /**
     * With the OpenTelemetry bridge, a task scheduled inside a request's span stores the scheduling
     * span's {@code traceparent} and runs as that span's child, in the request's trace.
     */
    @Test
    void shouldTraceDurableTasksWithBootsOpenTelemetryTracing() {
        runner.withClassLoader(OPEN_TELEMETRY_ONLY)
                .withUserConfiguration(OpenTelemetryExport.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    scheduleInARequest(context);
                    assertThat(storedTraceParent(context, "reminder"))
                            .as("the scheduling call's trace context, stored with the task")
                            .isNotNull();

                    Mails mails = context.getBean(Mails.class);
                    InMemorySpanExporter spans = context.getBean(InMemorySpanExporter.class);
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> mails.traceIds.size() == 1
                                    && spans.getFinishedSpanItems().stream()
                                            .anyMatch(span -> span.getName().equals("durable mails")));
                    SpanData request = otelSpan(spans, "http.server.requests", null);
                    SpanData scheduledNow = otelSpan(spans, "durable schedule mails", "welcome");
                    SpanData scheduledLater = otelSpan(spans, "durable schedule mails", "reminder");
                    SpanData run = otelSpan(spans, "durable mails", "welcome");
                    assertThat(scheduledNow.getParentSpanId()).isEqualTo(request.getSpanId());
                    assertThat(run.getTraceId()).isEqualTo(request.getTraceId());
                    assertThat(run.getParentSpanId()).isEqualTo(scheduledNow.getSpanId());
                    assertThat(mails.traceIds).containsExactly(request.getTraceId());
                    assertThat(storedTraceParent(context, "reminder"))
                            .startsWith("00-" + request.getTraceId() + "-" + scheduledLater.getSpanId() + "-");
                });
    }

    /**
     * Under the same wiring, Spring's {@code tasks.scheduled.execution} span of a clustered run
     * carries the job's name and its nominal fire.
     */
    @Test
    void shouldTagClusteredRunSpansWithBootsOpenTelemetryTracing() {
        runner.withClassLoader(OPEN_TELEMETRY_ONLY)
                .withUserConfiguration(OpenTelemetryExport.class, ClusteredJob.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Report report = context.getBean(Report.class);
                    InMemorySpanExporter spans = context.getBean(InMemorySpanExporter.class);
                    AttributeKey<String> job = AttributeKey.stringKey(ClusteredRunObservationFilter.JOB);
                    AttributeKey<String> fire = AttributeKey.stringKey(ClusteredRunObservationFilter.FIRE);

                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> spans.getFinishedSpanItems().stream()
                                    .anyMatch(span ->
                                            "report".equals(span.getAttributes().get(job))));
                    List<SpanData> runs = spans.getFinishedSpanItems().stream()
                            .filter(span -> "report".equals(span.getAttributes().get(job)))
                            .toList();
                    assertThat(runs)
                            .allSatisfy(span -> assertThat(report.fires.stream().map(Instant::toString))
                                    .contains(span.getAttributes().get(fire)));
                });
    }

    /**
     * With metrics but no tracer, Boot's registry turns the durable observations into timers, and
     * no trace context is stored.
     */
    @Test
    void shouldTimeDurableTasksWithBootsMetricsAlone() {
        runner.withClassLoader(NO_TRACER).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Tracer.class);
            scheduleInARequest(context);

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Timer scheduled = meters.find(ObservedDurableSchedule.NAME)
                    .tag("handler", "mails")
                    .timer();
            assertThat(scheduled).as("the scheduling calls' timer").isNotNull();
            assertThat(scheduled.count()).isEqualTo(2);
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                Timer run = meters.find(ObservedDurableExecution.NAME)
                        .tag("handler", "mails")
                        .timer();
                return run != null && run.count() == 1;
            });
            assertThat(context.getBean(Mails.class).traceIds).containsExactly("none");
            assertThat(storedTraceParent(context, "reminder")).isNull();
        });
    }

    /** Without Boot's observation auto-configuration there is no registry: durable tasks run as they are. */
    @Test
    void shouldRunDurableTasksWithoutAnObservationRegistry() {
        runner.withClassLoader(NO_TRACER)
                .withPropertyValues("spring.autoconfigure.exclude="
                        + "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration,"
                        + "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(ObservationRegistry.class);
                    DurableTasks tasks = context.getBean(DurableTasks.class);
                    tasks.schedule("mails", "welcome", Duration.ofMillis(100), "hi");
                    tasks.schedule("mails", "reminder", Duration.ofHours(1), "hi");

                    Mails mails = context.getBean(Mails.class);
                    await().atMost(Duration.ofSeconds(30)).until(() -> mails.traceIds.size() == 1);
                    assertThat(mails.traceIds).containsExactly("none");
                    assertThat(storedTraceParent(context, "reminder")).isNull();
                });
    }

    /** Schedules one task due at once and one due in an hour, inside an observed request. */
    static void scheduleInARequest(AssertableApplicationContext context) {
        DurableTasks tasks = context.getBean(DurableTasks.class);
        Observation.createNotStarted("http.server.requests", context.getBean(ObservationRegistry.class))
                .observe(() -> {
                    tasks.schedule("mails", "welcome", Duration.ofMillis(100), "hi");
                    tasks.schedule("mails", "reminder", Duration.ofHours(1), "hi");
                });
    }

    static String storedTraceParent(AssertableApplicationContext context, String key) {
        return new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("SELECT trace_parent FROM timed_jobs_tasks WHERE task_key = ?", String.class, key);
    }

    private static SpanData otelSpan(InMemorySpanExporter spans, String name, String key) {
        AttributeKey<String> keyAttribute = AttributeKey.stringKey("key");
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .filter(span -> key == null || key.equals(span.getAttributes().get(keyAttribute)))
                .findFirst()
                .orElseThrow(() ->
                        new AssertionError("no span " + name + " " + key + " in " + spans.getFinishedSpanItems()));
    }
}
