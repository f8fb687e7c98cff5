package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationFilter;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.timedjobs.scheduler.jdbc.RunOnEveryInstance;
import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import io.timedjobs.scheduler.spring.JobName;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;
import reactor.core.publisher.Mono;

/**
 * Spring's {@code tasks.scheduled.execution} observations of clustered runs carry the job's name
 * (low cardinality) and the nominal fire (high cardinality); runs on every instance carry the name
 * {@code none} and no fire.
 */
class ClusteredRunObservationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class, ClusterAutoConfiguration.class))
            .withPropertyValues("timed-jobs.cluster.poll-interval=200ms")
            .withUserConfiguration(App.class);

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class App {
        /** Each scheduled observation, once stopped (and filtered). */
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Bean
        DataSource dataSource() {
            return ClusterAutoConfigurationTest.h2();
        }

        /** The registry as Boot's observation auto-configuration builds it: filters and a handler. */
        @Bean
        ObservationRegistry observationRegistry(ObjectProvider<ObservationFilter> filters) {
            ObservationRegistry registry = ObservationRegistry.create();
            filters.orderedStream().forEach(registry.observationConfig()::observationFilter);
            registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
                @Override
                public void onStop(Observation.Context context) {
                    stopped.add(context);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return context instanceof ScheduledTaskObservationContext;
                }
            });
            return registry;
        }

        /** What Boot's scheduled-tasks observability does: the registrar observes through the registry. */
        @Bean
        SchedulingConfigurer observedScheduling(ObservationRegistry registry) {
            return registrar -> registrar.setObservationRegistry(registry);
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {
        final List<Instant> clusteredFires = new CopyOnWriteArrayList<>();

        @Scheduled(fixedRate = 300)
        @JobName("report")
        void report() {
            clusteredFires.add(ClusteredJobs.currentFire());
        }

        @Scheduled(fixedRate = 300)
        @RunOnEveryInstance
        void local() {}

        final List<Instant> reactiveFires = new CopyOnWriteArrayList<>();

        @Scheduled(fixedRate = 300)
        @JobName("reactiveReport")
        Mono<Void> reactiveReport() {
            return Mono.defer(() -> {
                Instant fire = ClusteredJobs.currentFire();
                return Mono.delay(Duration.ofMillis(50)).then(Mono.fromRunnable(() -> reactiveFires.add(fire)));
            });
        }
    }

    @Test
    void shouldTagClusteredRunsWithTheJobAndItsFire() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            App app = context.getBean(App.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> jobs.clusteredFires.size() >= 2
                            && names(app).contains(ClusteredRunObservationFilter.LOCAL));

            List<Observation.Context> clustered = app.stopped.stream()
                    .filter(observed -> "report".equals(value(observed.getLowCardinalityKeyValue("job.name"))))
                    .toList();
            assertThat(clustered).isNotEmpty();
            assertThat(clustered)
                    .extracting(observed -> value(observed.getHighCardinalityKeyValue("job.fire")))
                    .allSatisfy(fire -> assertThat(jobs.clusteredFires.stream().map(Instant::toString))
                            .contains(fire));
            List<Observation.Context> local = app.stopped.stream()
                    .filter(observed -> "none".equals(value(observed.getLowCardinalityKeyValue("job.name"))))
                    .toList();
            assertThat(local)
                    .isNotEmpty()
                    .allSatisfy(observed -> assertThat(observed.getHighCardinalityKeyValue("job.fire"))
                            .isNull());
        });
    }

    /**
     * A reactive clustered run's observation carries its job and fire, and is stopped as complete
     * once its publisher has ended.
     */
    @Test
    void shouldTagReactiveRunsWithTheJobAndItsFire() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            App app = context.getBean(App.class);
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(Duration.ofSeconds(30))
                    .until(() ->
                            names(app).stream().filter("reactiveReport"::equals).count() >= 2);
            List<Observation.Context> reactive = app.stopped.stream()
                    .filter(observed -> "reactiveReport".equals(value(observed.getLowCardinalityKeyValue("job.name"))))
                    .toList();
            assertThat(reactive).allSatisfy(observed -> {
                assertThat(((ScheduledTaskObservationContext) observed).isComplete())
                        .isTrue();
                // the publisher added its fire before it completed, and so before the stop
                assertThat(jobs.reactiveFires.stream().map(Instant::toString))
                        .contains(value(observed.getHighCardinalityKeyValue("job.fire")));
            });
        });
    }

    private static List<String> names(App app) {
        return app.stopped.stream()
                .map(observed -> value(observed.getLowCardinalityKeyValue("job.name")))
                .toList();
    }

    private static String value(KeyValue keyValue) {
        return keyValue == null ? null : keyValue.getValue();
    }
}
