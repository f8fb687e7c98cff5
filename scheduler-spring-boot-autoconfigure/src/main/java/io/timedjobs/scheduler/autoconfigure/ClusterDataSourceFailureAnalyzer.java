package io.timedjobs.scheduler.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Spring Boot failure analyzer, called by Boot only, when start-up fails. Explains a start-up
 * refused for want of a usable {@code DataSource} for the cluster: what is missing and how to run
 * without a cluster on purpose.
 */
final class ClusterDataSourceFailureAnalyzer extends AbstractFailureAnalyzer<ClusterDataSourceException>
        implements Ordered {

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, ClusterDataSourceException cause) {
        return new FailureAnalysis(String.valueOf(cause.getMessage()), cause.action(), cause);
    }
}
