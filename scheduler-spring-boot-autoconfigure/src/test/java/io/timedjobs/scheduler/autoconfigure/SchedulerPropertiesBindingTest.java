package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.MisfirePolicy;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Binding of the timed-jobs.* tree: every documented key accepted, every unknown key refused. */
class SchedulerPropertiesBindingTest {

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class));

    /** A misspelled top-level key stops start-up, and the failure names it. */
    @Test
    void shouldRefuseMisspelledKey() {
        runner.withPropertyValues("timed-jobs.pool-sise=4").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .hasRootCauseInstanceOf(UnboundConfigurationPropertiesException.class)
                    .hasStackTraceContaining("timed-jobs.pool-sise");
        });
    }

    /**
     * An unknown key under every nested class reachable from the root is refused too, so that
     * classes added to the tree later are covered without a change here.
     */
    @Test
    void shouldRefuseUnknownKeyInEveryNestedClass() throws Exception {
        List<String> prefixes = nestedPrefixes(SchedulerProperties.class, SchedulerProperties.PREFIX);
        assertThat(prefixes)
                .contains(
                        "timed-jobs.shutdown",
                        "timed-jobs.metrics",
                        "timed-jobs.health",
                        "timed-jobs.cluster",
                        "timed-jobs.jdbc",
                        "timed-jobs.durable",
                        "timed-jobs.dashboard");
        for (String prefix : prefixes) {
            String unknown = prefix + ".no-such-key";
            runner.withPropertyValues(unknown + "=1").run(context -> {
                assertThat(context).as(unknown).hasFailed();
                assertThat(context.getStartupFailure()).as(unknown).hasStackTraceContaining(unknown);
            });
        }
    }

    /** Every key the starter documents binds, in its documented spelling. */
    @Test
    void shouldAcceptEveryDocumentedKey() {
        runner.withPropertyValues(
                        "timed-jobs.enabled=true",
                        "timed-jobs.pool-size=3",
                        "timed-jobs.thread-name-prefix=jobs-",
                        "timed-jobs.virtual-threads=false",
                        "timed-jobs.misfire-policy=skip",
                        "timed-jobs.shutdown.execute-existing-delayed-tasks=false",
                        "timed-jobs.shutdown.continue-existing-periodic-tasks=true",
                        "timed-jobs.shutdown.await-termination=true",
                        "timed-jobs.shutdown.await-termination-period=5s",
                        "timed-jobs.metrics.enabled=true",
                        "timed-jobs.metrics.lateness-histogram=true",
                        "timed-jobs.health.lateness-threshold=30s",
                        "timed-jobs.cluster.enabled=true",
                        "timed-jobs.cluster.instance-name=a",
                        "timed-jobs.cluster.lookahead=5s",
                        "timed-jobs.cluster.poll-interval=1s",
                        "timed-jobs.cluster.lease=30s",
                        "timed-jobs.cluster.time-zone=Europe/Paris",
                        "timed-jobs.cluster.max-run-time=10m",
                        "timed-jobs.cluster.fire-horizon=1m",
                        "timed-jobs.cluster.local-jobs=cache.refresh",
                        "timed-jobs.cluster.database-timeout=3s",
                        "timed-jobs.cluster.listen=false",
                        "timed-jobs.cluster.fire-placement=sticky",
                        "timed-jobs.jdbc.initialize-schema=always",
                        "timed-jobs.jdbc.table-prefix=jobs_",
                        "timed-jobs.durable.max-attempts=3",
                        "timed-jobs.durable.initial-backoff=2s",
                        "timed-jobs.durable.max-backoff=1m",
                        "timed-jobs.durable.batch-size=100",
                        "timed-jobs.durable.pool-size=2",
                        "timed-jobs.durable.completion-linger=20ms",
                        "timed-jobs.dashboard.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    SchedulerProperties properties = context.getBean(SchedulerProperties.class);
                    assertThat(properties.getMisfirePolicy()).isEqualTo(MisfirePolicy.SKIP);
                    assertThat(properties.getShutdown().getAwaitTerminationPeriod())
                            .isEqualTo(Duration.ofSeconds(5));
                    assertThat(properties.getHealth().getLatenessThreshold()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(properties.getCluster().getLease()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(properties.getCluster().getDatabaseTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(properties.getCluster().isListen()).isFalse();
                    assertThat(properties.getCluster().getFirePlacement())
                            .isEqualTo(ClusterProperties.FirePlacement.STICKY);
                    assertThat(properties.getDurable().getMaxAttempts()).isEqualTo(3);
                    assertThat(properties.getDurable().getCompletionLinger()).isEqualTo(Duration.ofMillis(20));
                    assertThat(properties.getDashboard().isEnabled()).isTrue();
                });
    }

    /** The database timeout defaults to 2 s, and a zero one fails start-up naming the key. */
    @Test
    void shouldRefuseADatabaseTimeoutThatIsNotPositive() {
        runner.run(context -> assertThat(
                        context.getBean(SchedulerProperties.class).getCluster().getDatabaseTimeout())
                .isEqualTo(Duration.ofSeconds(2)));
        runner.withPropertyValues("timed-jobs.cluster.database-timeout=0s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("timed-jobs.cluster.database-timeout must be positive");
        });
    }

    /** misfire-policy takes the spellings the documentation uses. */
    @Test
    void shouldBindMisfirePolicyInKebabCase() {
        runner.withPropertyValues("timed-jobs.misfire-policy=catch-up")
                .run(context -> assertThat(
                                context.getBean(SchedulerProperties.class).getMisfirePolicy())
                        .isEqualTo(MisfirePolicy.CATCH_UP));
    }

    /** A bad enum value is explained with the choices as configuration spells them. */
    @Test
    void shouldExplainMisfirePolicyChoicesInKebabCase() {
        runner.withPropertyValues("timed-jobs.misfire-policy=sometimes").run(context -> {
            assertThat(context).hasFailed();
            BindException failure = findCause(context.getStartupFailure(), BindException.class);
            var analysis = new SchedulerPropertyValueFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(failure).isNotNull();
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("timed-jobs.misfire-policy", "sometimes");
            assertThat(analysis.getAction()).contains("catch-up, skip").doesNotContain("CATCH_UP");
        });
    }

    /** fire-placement is spread by default, and a value that is neither spread nor sticky fails start-up, listing both. */
    @Test
    void shouldRefuseAFirePlacementThatIsNotAChoice() {
        runner.run(context -> assertThat(
                        context.getBean(SchedulerProperties.class).getCluster().getFirePlacement())
                .isEqualTo(ClusterProperties.FirePlacement.SPREAD));
        runner.withPropertyValues("timed-jobs.cluster.fire-placement=random").run(context -> {
            assertThat(context).hasFailed();
            var analysis = new SchedulerPropertyValueFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("timed-jobs.cluster.fire-placement", "random");
            assertThat(analysis.getAction()).contains("spread, sticky");
        });
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** Prefixes of the nested classes: read-only properties whose type is declared in the root. */
    private static List<String> nestedPrefixes(Class<?> type, String prefix) throws Exception {
        List<String> prefixes = new ArrayList<>();
        for (PropertyDescriptor property : Introspector.getBeanInfo(type).getPropertyDescriptors()) {
            Method getter = property.getReadMethod();
            Class<?> propertyType = property.getPropertyType();
            if (getter == null
                    || propertyType == null
                    || propertyType.isEnum()
                    || propertyType.getPackage() != SchedulerProperties.class.getPackage()) {
                continue;
            }
            String nested = prefix + "." + kebab(property.getName());
            prefixes.add(nested);
            prefixes.addAll(nestedPrefixes(propertyType, nested));
        }
        return prefixes;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
