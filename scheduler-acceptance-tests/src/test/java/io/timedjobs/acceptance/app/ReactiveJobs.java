package io.timedjobs.acceptance.app;

import io.timedjobs.scheduler.jdbc.cluster.ClusteredJobs;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Profile;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Spring bean of the {@code reactive} profile, its publishers subscribed by Spring at each fire.
 * Two reactive jobs of 3 s each, a fixed-delay one and a cron one every 2 s. Each run logs {@code
 * REACTIVE job=<name> event=start|end at=<epoch ms> fire=<fire> instance=<name>}.
 */
@Component
@Profile("reactive")
public class ReactiveJobs {

    private static final Logger logger = LoggerFactory.getLogger(ReactiveJobs.class);

    private static final Duration WORK = Duration.ofSeconds(3);

    private final String instance;

    public ReactiveJobs(@Value("${timed-jobs.cluster.instance-name:unnamed}") String instance) {
        this.instance = instance;
    }

    @Scheduled(fixedDelay = 1000)
    public Mono<Void> reactiveFixedDelay() {
        return work("reactiveFixedDelay");
    }

    @Scheduled(cron = "*/2 * * * * *")
    public Mono<Void> reactiveCron() {
        return work("reactiveCron");
    }

    private Mono<Void> work(String job) {
        return Mono.defer(() -> {
            Instant fire = ClusteredJobs.currentFire();
            log(job, "start", fire);
            return Mono.delay(WORK)
                    .doOnSuccess(ignored -> log(job, "end", fire))
                    .then();
        });
    }

    private void log(String job, String event, Instant fire) {
        logger.info(
                "REACTIVE job={} event={} at={} fire={} instance={}",
                job,
                event,
                System.currentTimeMillis(),
                fire == null ? "-" : fire,
                instance);
    }
}
