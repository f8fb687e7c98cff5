package io.timedjobs.sample;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * One job of each kind {@code @Scheduled} offers. Their timing comes from {@code sample.jobs.*} in
 * {@code application.yml}.
 */
@Component
public class SampleJobs {

    private static final Logger log = LoggerFactory.getLogger(SampleJobs.class);

    private final JobActivity activity;
    private final ObjectProvider<LeaderFollowerTaskScheduler> scheduler;
    private final ReminderService reminders;

    SampleJobs(JobActivity activity, ObjectProvider<LeaderFollowerTaskScheduler> scheduler, ReminderService reminders) {
        this.activity = activity;
        this.scheduler = scheduler;
        this.reminders = reminders;
    }

    /** Fixed rate: every few seconds, whatever the previous run took. */
    @Scheduled(fixedRateString = "${sample.jobs.heartbeat-rate}")
    public void heartbeat() {
        activity.ran("heartbeat");
        LeaderFollowerTaskScheduler timedJobs = scheduler.getIfAvailable();
        if (timedJobs == null) {
            log.info("heartbeat (on Spring Boot's default scheduler: timed-jobs.enabled is false)");
            return;
        }
        LeaderFollowerScheduler engine = timedJobs.getScheduledExecutor();
        log.info(
                "heartbeat: {} tasks queued, {} running, most overdue {} ms",
                engine.getQueueSize(),
                engine.getActiveCount(),
                engine.getOverdue(TimeUnit.MILLISECONDS));
    }

    /** Fixed delay: the next run starts a fixed time after this one ends. */
    @Scheduled(fixedDelayString = "${sample.jobs.cleanup-delay}")
    public void cleanup() {
        activity.ran("cleanup");
        log.info("cleanup: {} reminders pending", reminders.pending().size());
    }

    /** Cron, with a seconds field: at the start of every matching second. */
    @Scheduled(cron = "${sample.jobs.report-cron}")
    public void report() {
        activity.ran("report");
        log.info("report: {} reminders fired so far", reminders.firedCount());
    }

    /** Initial delay: waits once after start-up, then repeats at a slow rate. */
    @Scheduled(initialDelayString = "${sample.jobs.warm-up-delay}", fixedRateString = "${sample.jobs.warm-up-rate}")
    public void warmUp() {
        activity.ran("warm-up");
        log.info("warm-up: caches refreshed");
    }
}
