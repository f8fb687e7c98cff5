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
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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
                    .containsExactly(ObservedDurableExecution.NAME + " reminders");
        });
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
