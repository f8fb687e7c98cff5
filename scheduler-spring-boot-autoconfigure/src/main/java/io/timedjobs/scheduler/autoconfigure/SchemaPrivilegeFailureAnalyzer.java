package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;

/**
 * Spring Boot failure analyzer, called by Boot only, when start-up fails. Explains a start-up
 * refused because the database user may not create or alter the Timed Jobs tables: the right to
 * grant, or the key that leaves the tables to Flyway or Liquibase. The exception is matched by
 * name: {@code scheduler-jdbc}, which throws it, is optional.
 */
final class SchemaPrivilegeFailureAnalyzer implements FailureAnalyzer, Ordered {

    private static final String EXCEPTION = "io.timedjobs.scheduler.jdbc.schema.SchemaPrivilegeException";

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
                        "Grant the right named above to the database user and start again, or create the tables"
                                + " with Flyway or Liquibase (spring.flyway.locations or the changelog, with the"
                                + " placeholder timedJobsPrefix) and set " + SchedulerProperties.PREFIX
                                + ".jdbc.initialize-schema=never. The rights each database needs are listed in"
                                + " docs/databases.md.",
                        cause);
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }
}
