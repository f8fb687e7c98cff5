package io.timedjobs.scheduler.autoconfigure;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * Adds the engine's settings to the actuator's info endpoint, under {@code timedJobs}. Called by
 * the actuator on any thread; reads only settings fixed at start-up.
 */
final class SchedulerInfoContributor implements InfoContributor {

    private final LeaderFollowerTaskScheduler scheduler;

    SchedulerInfoContributor(LeaderFollowerTaskScheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public void contribute(Info.Builder builder) {
        LeaderFollowerScheduler engine = scheduler.getScheduledExecutor();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("poolSize", engine.getCorePoolSize());
        settings.put("threadNamePrefix", scheduler.getThreadNamePrefix());
        settings.put("virtualThreads", scheduler.isVirtualThreads());
        settings.put(
                "misfirePolicy",
                scheduler
                        .getMisfirePolicy()
                        .name()
                        .toLowerCase(java.util.Locale.ROOT)
                        .replace('_', '-'));
        settings.put("awaitTermination", scheduler.isWaitForTasksToCompleteOnShutdown());
        settings.put(
                "awaitTerminationPeriod", scheduler.getAwaitTerminationPeriod().toString());
        settings.put("clock", engine.getClock().toString());
        builder.withDetail("timedJobs", settings);
    }
}
