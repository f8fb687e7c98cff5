package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.timedjobs.scheduler.jdbc.durable.DurableTask;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.durable.Jackson2PayloadCodec;
import io.timedjobs.scheduler.jdbc.durable.JacksonPayloadCodec;
import io.timedjobs.scheduler.jdbc.durable.PayloadCodec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.ContextClosedEvent;

@ExtendWith(OutputCaptureExtension.class)
class DurableTaskAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    SchedulerAutoConfiguration.class,
                    ClusterAutoConfiguration.class,
                    DurableTaskAutoConfiguration.class))
            .withPropertyValues(
                    "timed-jobs.cluster.poll-interval=100ms",
                    "timed-jobs.cluster.lookahead=1s",
                    "timed-jobs.cluster.lease=2s");

    record Reminder(String who, String text) {}

    /** A handler bean that keeps what it ran. */
    static final class Reminders implements DurableTaskHandler<Reminder> {
        final List<DurableTask<Reminder>> ran = new CopyOnWriteArrayList<>();

        @Override
        public Class<Reminder> payloadType() {
            return Reminder.class;
        }

        @Override
        public void handle(DurableTask<Reminder> task) {
            ran.add(task);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        @Bean
        Reminders reminders() {
            return new Reminders();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Observed {
        final List<String> observed = new CopyOnWriteArrayList<>();

        @Bean
        ObservationRegistry observationRegistry() {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
                @Override
                public void onStart(Observation.Context context) {
                    observed.add(context.getName() + " "
                            + context.getLowCardinalityKeyValue("handler").getValue());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
            return registry;
        }
    }

    /**
     * With a DataSource and a handler bean, a task scheduled through DurableTasks with a JSON payload
     * runs on this instance, inside an Observation, read as the handler's declared type.
     */
    @Test
    void shouldRunADurableTaskThroughTheHandlerBean() {
        runner.withUserConfiguration(App.class, Observed.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(PayloadCodec.class)).isInstanceOf(JacksonPayloadCodec.class);
            DurableTasks tasks = context.getBean(DurableTasks.class);

            long id = tasks.schedule("reminders", "tea", Duration.ofMillis(100), new Reminder("ada", "tea"));

            Reminders reminders = context.getBean(Reminders.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> reminders.ran.size() == 1);
            assertThat(reminders.ran.get(0).payload()).isEqualTo(new Reminder("ada", "tea"));
            assertThat(reminders.ran.get(0).id()).isEqualTo(id);
            assertThat(context.getBean(Observed.class).observed)
                    .containsExactly(
                            ObservedDurableSchedule.NAME + " reminders", ObservedDurableExecution.NAME + " reminders");
        });
    }

    /**
     * A handler that, once started, keeps running until the context is closing and the closing
     * thread waits for the durable engine to terminate: it finishes only if the engine's stop waits.
     */
    static final class SlowHandler implements DurableTaskHandler<String>, ApplicationListener<ContextClosedEvent> {
        final CountDownLatch started = new CountDownLatch(1);
        final AtomicBoolean closing = new AtomicBoolean();
        final AtomicBoolean finished = new AtomicBoolean();
        volatile Thread closer;

        @Override
        public Class<String> payloadType() {
            return String.class;
        }

        @Override
        public void onApplicationEvent(ContextClosedEvent event) {
            closer = Thread.currentThread();
            closing.set(true);
        }

        @Override
        public void handle(DurableTask<String> task) {
            started.countDown();
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> closing.get() && closer.getState() == Thread.State.TIMED_WAITING);
            finished.set(true);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowApp {
        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        @Bean
        SlowHandler slow() {
            return new SlowHandler();
        }
    }

    /**
     * With default shutdown properties, closing the context stops the durable engine without a
     * failure: it waits for the running handler and writes its outcome (the row of a done task goes).
     */
    @Test
    void shouldStopTheEngineWithDefaultPropertiesAfterItsRunningHandler(CapturedOutput output) throws Exception {
        SlowHandler[] slow = new SlowHandler[1];
        DurableTasks[] tasks = new DurableTasks[1];
        runner.withUserConfiguration(SlowApp.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(DurableTaskLifecycle.class).awaitTermination())
                    .isEqualTo(Duration.ofSeconds(30));
            slow[0] = context.getBean(SlowHandler.class);
            tasks[0] = context.getBean(DurableTasks.class);
            tasks[0].schedule("slow", "k", Duration.ZERO, "payload");
            assertThat(slow[0].started.await(10, TimeUnit.SECONDS)).isTrue();
        });

        assertThat(slow[0].finished).isTrue();
        assertThat(tasks[0].find("slow", "k")).isEmpty();
        assertThat(output).doesNotContain("Failed to stop bean").doesNotContain("NullPointerException");
    }

    /** The engine's wait at stop follows Spring Boot's scheduling keys, and timed-jobs' own keys win. */
    @Test
    void shouldResolveTheDurableShutdownWaitLikeTheScheduler() {
        runner.withUserConfiguration(App.class)
                .withPropertyValues("spring.task.scheduling.shutdown.await-termination-period=7s")
                .run(context -> assertThat(
                                context.getBean(DurableTaskLifecycle.class).awaitTermination())
                        .isEqualTo(Duration.ofSeconds(7)));
        runner.withUserConfiguration(App.class)
                .withPropertyValues(
                        "spring.task.scheduling.shutdown.await-termination-period=7s",
                        "timed-jobs.shutdown.await-termination-period=3s")
                .run(context -> assertThat(
                                context.getBean(DurableTaskLifecycle.class).awaitTermination())
                        .isEqualTo(Duration.ofSeconds(3)));
        runner.withUserConfiguration(App.class)
                .withPropertyValues("timed-jobs.shutdown.await-termination=false")
                .run(context -> assertThat(
                                context.getBean(DurableTaskLifecycle.class).awaitTermination())
                        .isZero());
    }

    /** The meters of the engine carry its figures. */
    @Test
    void shouldPublishDurableTaskMeters() {
        runner.withUserConfiguration(App.class).run(context -> {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            context.getBean(DurableTaskMetrics.class).bindTo(registry);
            context.getBean(DurableTasks.class).schedule("reminders", "k", Duration.ZERO, new Reminder("a", "b"));

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> registry.get("scheduler.cluster.durable.completed")
                                    .functionCounter()
                                    .count()
                            == 1);
            assertThat(registry.get("scheduler.cluster.durable.claimed")
                            .functionCounter()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get("scheduler.cluster.durable.pending").gauge().value())
                    .isNotNegative();
            assertThat(registry.get("scheduler.cluster.durable.rescued")
                            .tag("scheduler", "durableTaskEngine")
                            .functionCounter()
                            .count())
                    .isZero();
        });
    }

    /** Without Jackson 3 on the class path, payloads go through Jackson 2. */
    @Test
    void shouldFallBackToJackson2() {
        runner.withUserConfiguration(App.class)
                .withClassLoader(new FilteredClassLoader("tools.jackson."))
                .run(context ->
                        assertThat(context.getBean(PayloadCodec.class)).isInstanceOf(Jackson2PayloadCodec.class));
    }

    /** Off with cluster.enabled=false, and without a DataSource. */
    @Test
    void shouldStayOffWhenTheClusterIsOff() {
        runner.withUserConfiguration(App.class)
                .withPropertyValues("timed-jobs.cluster.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(DurableTaskEngine.class));
        runner.run(context -> assertThat(context).doesNotHaveBean(DurableTasks.class));
    }
}
