package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * With a real tracer (OpenTelemetry's SDK through Micrometer Tracing, W3C propagation), a durable
 * task's run joins the trace of the request that scheduled it, as a child of the scheduling span;
 * without handlers on the registry, nothing is stored. The registry here is built by hand, as an
 * application without Boot's observation auto-configuration builds it; {@link
 * BootObservabilityTest} has the same under Boot's own wiring.
 */
class DurableTraceTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchedulerAutoConfiguration.class,
                    ClusterAutoConfiguration.class,
                    DurableTaskAutoConfiguration.class))
            .withPropertyValues(
                    "timed-jobs.cluster.poll-interval=100ms",
                    "timed-jobs.cluster.lookahead=1s",
                    "timed-jobs.cluster.lease=2s")
            .withUserConfiguration(App.class);

    /** A handler that keeps the trace id it runs under. */
    static final class Mails implements DurableTaskHandler<String> {
        final List<String> traceIds = new CopyOnWriteArrayList<>();
        volatile Tracer tracer;

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void handle(DurableTask<String> task) {
            traceIds.add(
                    tracer == null || tracer.currentSpan() == null
                            ? "none"
                            : tracer.currentSpan().context().traceId());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        @Bean
        Mails mails() {
            return new Mails();
        }
    }

    /** A tracer as Boot's tracing auto-configuration would register it, exporting to memory. */
    @Configuration(proxyBeanMethods = false)
    static class Tracing {
        final InMemorySpanExporter spans = InMemorySpanExporter.create();
        final SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(spans))
                .build();

        @Bean
        OtelTracer tracer() {
            return new OtelTracer(provider.get("test"), new OtelCurrentTraceContext(), event -> {});
        }

        @Bean
        ObservationRegistry observationRegistry(OtelTracer tracer, Mails mails) {
            mails.tracer = tracer;
            OtelPropagator propagator = new OtelPropagator(
                    ContextPropagators.create(W3CTraceContextPropagator.getInstance()), provider.get("test"));
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig()
                    .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                            new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                            new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                            new DefaultTracingObservationHandler(tracer)));
            return registry;
        }
    }

    /**
     * A task scheduled inside a request's observation runs in the request's trace: its span's parent
     * is the scheduling span, whose parent is the request's span.
     */
    @Test
    void shouldRunTheTaskAsAChildOfTheSchedulingCall() {
        runner.withUserConfiguration(Tracing.class).run(context -> {
            assertThat(context).hasNotFailed();
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            DurableTasks tasks = context.getBean(DurableTasks.class);
            Mails mails = context.getBean(Mails.class);

            Observation.createNotStarted("http.server.requests", registry)
                    .observe(() -> tasks.schedule("mails", "welcome", Duration.ofMillis(100), "hi"));

            await().atMost(Duration.ofSeconds(10)).until(() -> mails.traceIds.size() == 1);
            InMemorySpanExporter spans = context.getBean(Tracing.class).spans;
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> spans.getFinishedSpanItems().size() == 3);
            SpanData request = span(spans, "http.server.requests");
            SpanData scheduling = span(spans, "durable schedule mails");
            SpanData run = span(spans, "durable mails");
            assertThat(scheduling.getParentSpanId()).isEqualTo(request.getSpanId());
            assertThat(run.getTraceId()).isEqualTo(request.getTraceId());
            assertThat(run.getParentSpanId()).isEqualTo(scheduling.getSpanId());
            assertThat(mails.traceIds).containsExactly(request.getTraceId());
            // The completion is written after the run's span ends: a group of completions lingers.
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM timed_jobs_tasks", Integer.class) == 0);
        });
    }

    /** With an observation registry but no tracer, the column stays empty. */
    @Test
    void shouldStoreNoContextWithoutATracer() {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(DurableTasks.class).schedule("mails", "later", Duration.ofHours(1), "hi");

            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForList("SELECT trace_parent FROM timed_jobs_tasks", String.class))
                    .containsExactly((String) null);
        });
    }

    /** A registry from an auto-configuration that Boot sorts after the durable one. */
    @AutoConfiguration(after = DurableTaskAutoConfiguration.class)
    static class LateRegistryAutoConfiguration {
        final List<String> observed = new CopyOnWriteArrayList<>();

        @Bean
        ObservationRegistry observationRegistry() {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
                @Override
                public void onStop(Observation.Context context) {
                    observed.add(context.getName());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
            return registry;
        }
    }

    /** The registry is taken when the engine is built, whichever auto-configuration defines it, however sorted. */
    @Test
    void shouldObserveThroughARegistryDefinedAfterTheDurableAutoConfiguration() {
        runner.withConfiguration(AutoConfigurations.of(LateRegistryAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(DurableTasks.class).schedule("mails", "welcome", Duration.ofMillis(100), "hi");

                    List<String> observed = context.getBean(LateRegistryAutoConfiguration.class).observed;
                    assertThat(observed).contains(ObservedDurableSchedule.NAME);
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> observed.contains(ObservedDurableExecution.NAME));
                });
    }

    private static SpanData span(InMemorySpanExporter spans, String name) {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans.getFinishedSpanItems()));
    }
}
