package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Makes the {@code timedJobs} health indicator of a scheduler as a bean of the {@code
 * HealthIndicator} type of the running Spring Boot line. Used by the container only.
 *
 * <p>The scheduler (and the cluster's part, with {@code scheduler-jdbc}) is looked up only when the indicator is made: the container may create this
 * factory early, to learn its object type, while the scheduler itself is still being created.
 *
 * @param <T> the {@code HealthIndicator} type; left open, so that the container asks {@link
 *     #getObjectType()} instead of reading a type from this class's declaration
 */
final class SchedulerHealthIndicatorFactoryBean<T> implements FactoryBean<T> {

    private final HealthApi api;
    private final ObjectProvider<LeaderFollowerTaskScheduler> scheduler;
    private final @Nullable Duration latenessThreshold;
    private final ObjectProvider<SchedulerHealth.ClusterPart> cluster;
    private @Nullable T indicator;

    SchedulerHealthIndicatorFactoryBean(
            HealthApi api,
            ObjectProvider<LeaderFollowerTaskScheduler> scheduler,
            @Nullable Duration latenessThreshold,
            ObjectProvider<SchedulerHealth.ClusterPart> cluster) {
        this.api = api;
        this.scheduler = scheduler;
        this.latenessThreshold = latenessThreshold;
        this.cluster = cluster;
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized T getObject() {
        T made = indicator;
        if (made == null) {
            LeaderFollowerTaskScheduler taskScheduler = scheduler.getObject();
            SchedulerHealth health =
                    new SchedulerHealth(taskScheduler.getScheduledExecutor(), latenessThreshold, cluster.getIfUnique());
            made = (T) api.healthIndicator(health::read, "timedJobs health of " + taskScheduler);
            indicator = made;
        }
        return made;
    }

    @Override
    public Class<?> getObjectType() {
        return api.healthIndicatorType();
    }
}
