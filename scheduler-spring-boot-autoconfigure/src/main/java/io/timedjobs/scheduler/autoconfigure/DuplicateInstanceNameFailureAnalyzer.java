package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Explains a start-up refused because another live process uses this instance's {@code
 * timed-jobs.cluster.instance-name}. Called by Spring Boot only, when start-up fails. The exception
 * is matched by name: {@code scheduler-jdbc}, which throws it, is optional.
 */
final class DuplicateInstanceNameFailureAnalyzer implements FailureAnalyzer, Ordered {

    private static final String EXCEPTION = "io.timedjobs.scheduler.jdbc.database.DuplicateInstanceNameException";

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause.getClass().getName().equals(EXCEPTION)) {
                return new FailureAnalysis(
                        String.valueOf(cause.getMessage()),
                        "Give each instance its own " + SchedulerProperties.PREFIX + ".cluster.instance-name (or"
                                + " leave it unset: the default is unique). A process restarted under the name of one"
                                + " that died takes its row over by itself, once the row's heartbeat has stood still"
                                + " for two poll intervals.",
                        cause);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }
}
