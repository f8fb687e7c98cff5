package io.timedjobs.scheduler.autoconfigure;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.observation.ObservationRegistry;
import io.timedjobs.scheduler.jdbc.database.ClusterDatabase;
import io.timedjobs.scheduler.jdbc.database.ClusterHeartbeat;
import io.timedjobs.scheduler.jdbc.database.DatabaseClock;
import io.timedjobs.scheduler.jdbc.durable.DurableExecutionObserver;
import io.timedjobs.scheduler.jdbc.durable.DurableScheduleObserver;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskEngine;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskHandler;
import io.timedjobs.scheduler.jdbc.durable.DurableTaskSettings;
import io.timedjobs.scheduler.jdbc.durable.DurableTasks;
import io.timedjobs.scheduler.jdbc.durable.Jackson2PayloadCodec;
import io.timedjobs.scheduler.jdbc.durable.JacksonPayloadCodec;
import io.timedjobs.scheduler.jdbc.durable.PayloadCodec;
import io.timedjobs.scheduler.jdbc.history.RunHistory;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Spring Boot auto-configuration, read by Boot only. Durable tasks on the cluster's database: the
 * {@link DurableTasks} bean that schedules them, the
 * {@link DurableTaskEngine} that claims and runs them on this instance, with the application's
 * {@link DurableTaskHandler} beans by bean name. On when {@link ClusterAutoConfiguration} is.
 *
 * <p>Payloads other than Strings go through the application's JSON mapper: Jackson 3's {@code
 * JsonMapper} when Jackson 3 is present (Spring Boot 4), else Jackson 2's {@code ObjectMapper}.
 *
 * <p>It runs after Boot's observation and tracing auto-configurations, and takes the {@code
 * ObservationRegistry} when the engine is built rather than asking for it in a condition: an
 * auto-configuration sorted before Boot's would otherwise find no registry and make no
 * observation, silently.
 */
@AutoConfiguration(
        after = ClusterAutoConfiguration.class,
        afterName = {
            // Spring Boot 4
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
            "org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration",
            // Spring Boot 3.5
            "org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.tracing.MicrometerTracingAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.tracing.OpenTelemetryTracingAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.tracing.BraveAutoConfiguration"
        })
@ConditionalOnClass(DurableTaskEngine.class)
@ConditionalOnBean({ClusterDatabase.class, ClusterHeartbeat.class, DatabaseClock.class})
@ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".cluster", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(SchedulerProperties.class)
public class DurableTaskAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public DurableTaskEngine durableTaskEngine(
            ClusterDatabase database,
            ClusterHeartbeat heartbeat,
            DatabaseClock databaseClock,
            SchedulerProperties properties,
            ListableBeanFactory beans,
            ObjectProvider<PayloadCodec> codec,
            ObjectProvider<DurableExecutionObserver> observer,
            ObjectProvider<DurableScheduleObserver> scheduleObserver,
            ObjectProvider<PlatformTransactionManager> transactionManager,
            ObjectProvider<RunHistory> history) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        Map<String, DurableTaskHandler<?>> handlers = (Map) beans.getBeansOfType(DurableTaskHandler.class);
        PlatformTransactionManager transactions =
                transactionManager.getIfUnique(() -> new DataSourceTransactionManager(database.dataSource()));
        return DurableTaskEngine.builder(database)
                .heartbeat(heartbeat, databaseClock)
                .clock(databaseClock.localClock())
                .handlers(handlers)
                .codec(codec.getIfAvailable(PayloadCodec::stringsOnly))
                .observer(observer.getIfAvailable(DurableExecutionObserver::none))
                .scheduleObserver(scheduleObserver.getIfAvailable(DurableScheduleObserver::none))
                .transactionManager(transactions)
                .settings(settings(properties))
                .listen(properties.getDurable().isListen())
                .completionLinger(properties.getDurable().getCompletionLinger())
                .history(history.getIfAvailable(() -> RunHistory.disabled(database)))
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    public DurableTasks durableTasks(DurableTaskEngine engine) {
        return engine.tasks();
    }

    @Bean
    @ConditionalOnMissingBean
    public DurableTaskLifecycle durableTaskLifecycle(
            DurableTaskEngine engine, SchedulerProperties properties, Environment environment) {
        return new DurableTaskLifecycle(
                engine, SchedulerAutoConfiguration.shutdownWait(properties.getShutdown(), environment));
    }

    static DurableTaskSettings settings(SchedulerProperties properties) {
        ClusterProperties cluster = properties.getCluster();
        DurableProperties durable = properties.getDurable();
        Integer poolSize = durable.getPoolSize();
        return new DurableTaskSettings(
                cluster.getLookahead(),
                cluster.getPollInterval(),
                cluster.getLease(),
                durable.getMaxAttempts(),
                durable.getInitialBackoff(),
                durable.getMaxBackoff(),
                durable.getBatchSize(),
                poolSize != null ? poolSize : Math.max(2, Runtime.getRuntime().availableProcessors()));
    }

    /** Payloads through Jackson 3, the mapper of Spring Boot 4. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "tools.jackson.databind.json.JsonMapper")
    static class Jackson3Codec {

        @Bean
        @ConditionalOnMissingBean
        PayloadCodec durableTaskPayloadCodec(ObjectProvider<JsonMapper> mapper) {
            return new JacksonPayloadCodec(
                    mapper.getIfAvailable(() -> JsonMapper.builder().build()));
        }
    }

    /** Payloads through Jackson 2, the mapper of Spring Boot 3.5, when Jackson 3 is absent. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "com.fasterxml.jackson.databind.ObjectMapper")
    @ConditionalOnMissingClass("tools.jackson.databind.json.JsonMapper")
    static class Jackson2Codec {

        @Bean
        @ConditionalOnMissingBean
        PayloadCodec durableTaskPayloadCodec(ObjectProvider<ObjectMapper> mapper) {
            return new Jackson2PayloadCodec(mapper.getIfAvailable(ObjectMapper::new));
        }
    }

    /**
     * Each durable scheduling call and execution inside an Observation, when Micrometer's observation
     * API is in use; with a tracer, the run's span continues the trace of the scheduling call.
     *
     * <p>The application's registry is looked up when the engine asks for these observers, once
     * every bean is defined, whichever auto-configuration defines it; with none, both observe
     * nothing ({@link ObservationRegistry#NOOP}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
    static class Observed {

        @Bean
        @ConditionalOnMissingBean
        DurableExecutionObserver durableTaskObserver(ObjectProvider<ObservationRegistry> registry) {
            return new ObservedDurableExecution(registry.getIfAvailable(() -> ObservationRegistry.NOOP));
        }

        @Bean
        @ConditionalOnMissingBean
        DurableScheduleObserver durableTaskScheduleObserver(ObjectProvider<ObservationRegistry> registry) {
            return new ObservedDurableSchedule(registry.getIfAvailable(() -> ObservationRegistry.NOOP));
        }
    }

    /** The durable task meters, when Micrometer is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnProperty(prefix = SchedulerProperties.PREFIX + ".metrics", name = "enabled", matchIfMissing = true)
    static class Metrics {

        @Bean
        DurableTaskMetrics durableTaskMetrics(DurableTaskEngine engine) {
            return new DurableTaskMetrics(engine, "durableTaskEngine");
        }
    }
}
