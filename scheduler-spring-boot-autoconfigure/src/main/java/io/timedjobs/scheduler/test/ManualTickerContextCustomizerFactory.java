package io.timedjobs.scheduler.test;

import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.TestPropertySourceUtils;
import org.springframework.util.ClassUtils;

/**
 * Registered in {@code META-INF/spring.factories}; stateless. Turns cluster coordination off
 * ({@value #CLUSTER_ENABLED}{@code =false}) for a test class annotated with {@link
 * AutoConfigureManualTicker} whose {@link AutoConfigureManualTicker#cluster()} is false, when
 * scheduler-jdbc is on the class path: clustered fires follow the database's clock, which the
 * manual ticker cannot move.
 *
 * <p>Spring Boot's {@code @PropertyMapping} would do the same, but it lives in different packages
 * on Spring Boot 3.5 and 4, and this jar serves both.
 */
public final class ManualTickerContextCustomizerFactory implements ContextCustomizerFactory {

    /** The property that switches cluster coordination on and off. */
    static final String CLUSTER_ENABLED = "timed-jobs.cluster.enabled";

    private static final String CLUSTER_CLASS = "io.timedjobs.scheduler.jdbc.database.ClusterInstance";

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(
            Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        AutoConfigureManualTicker annotation =
                TestContextAnnotationUtils.findMergedAnnotation(testClass, AutoConfigureManualTicker.class);
        if (annotation == null || annotation.cluster() || !ClassUtils.isPresent(CLUSTER_CLASS, null)) {
            return null;
        }
        return new ClusterOff();
    }

    /** Adds {@value #CLUSTER_ENABLED}{@code =false} in front of the application's own settings. */
    private record ClusterOff() implements ContextCustomizer {

        private static final Log logger = LogFactory.getLog(AutoConfigureManualTicker.class);

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
            MutablePropertySources sources = context.getEnvironment().getPropertySources();
            PropertySource<?> inlined = sources.get(TestPropertySourceUtils.INLINED_PROPERTIES_PROPERTY_SOURCE_NAME);
            if (inlined != null && inlined.containsProperty(CLUSTER_ENABLED)) {
                // The test's own properties decide.
                return;
            }
            sources.addFirst(new MapPropertySource(
                    AutoConfigureManualTicker.class.getSimpleName(), Map.of(CLUSTER_ENABLED, "false")));
            logger.info("@AutoConfigureManualTicker turns Timed Jobs cluster coordination off (" + CLUSTER_ENABLED
                    + "=false): jobs run on the manual ticker; @AutoConfigureManualTicker(cluster = true) keeps it,"
                    + " and clustered jobs then follow the database clock, which the ticker does not move");
        }
    }
}
