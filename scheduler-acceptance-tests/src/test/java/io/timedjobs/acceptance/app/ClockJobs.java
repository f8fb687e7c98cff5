package io.timedjobs.acceptance.app;

import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Spring bean, run by the scheduler's workers. The application's plain jobs: a cron job every
 * second, a fixed-rate job, and a job listed in {@code timed-jobs.cluster.local-jobs}. Each run
 * logs one INFO line that the tests read: {@code RUN job=<name> fire=<fire> instance=<name>}.
 */
@Component
public class ClockJobs {

    private static final Logger logger = LoggerFactory.getLogger(ClockJobs.class);

    private final String instance;

    public ClockJobs(@Value("${timed-jobs.cluster.instance-name:unnamed}") String instance) {
        this.instance = instance;
    }

    @Scheduled(cron = "*/1 * * * * *")
    public void everySecond() {
        log("everySecond");
    }

    @Scheduled(fixedRate = 2000)
    public void everyTwoSeconds() {
        log("everyTwoSeconds");
    }

    /** Listed in timed-jobs.cluster.local-jobs: runs on every instance. */
    @Scheduled(fixedRate = 1000)
    public void refreshLocalCache() {
        log("refreshLocalCache");
    }

    private void log(String job) {
        Instant fire = ClusteredJobs.currentFire();
        logger.info("RUN job={} fire={} instance={}", job, fire == null ? "-" : fire, instance);
    }
}
