package io.timedjobs.scheduler.autoconfigure;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.convert.ConversionFailedException;

/**
 * Explains a {@code timed-jobs.*} key with a value that is not one of its choices, listing them as
 * they are written in configuration ({@code catch-up}, {@code skip}), not as Java constants.
 * Called by Spring Boot only, when start-up fails.
 */
final class SchedulerPropertyValueFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

    @Override
    public int getOrder() {
        // before Spring Boot's own BindFailureAnalyzer, which lists the Java constants
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
        String name = cause.getName().toString();
        if (!name.startsWith(SchedulerProperties.PREFIX + ".")) {
            return null;
        }
        ConversionFailedException conversion = findCause(cause, ConversionFailedException.class);
        if (conversion == null) {
            return null;
        }
        Object[] constants = conversion.getTargetType().getType().getEnumConstants();
        if (constants == null) {
            return null;
        }
        String choices = Arrays.stream(constants)
                .map(constant ->
                        ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .collect(Collectors.joining(", "));
        ConfigurationProperty property = cause.getProperty();
        StringBuilder description = new StringBuilder("Invalid value for '" + name + "'");
        if (property != null) {
            description.append(": '").append(property.getValue()).append("'");
            if (property.getOrigin() != null) {
                description.append(" (from ").append(property.getOrigin()).append(")");
            }
        }
        return new FailureAnalysis(
                description.append(".").toString(), "Set '" + name + "' to one of: " + choices + ".", cause);
    }
}
