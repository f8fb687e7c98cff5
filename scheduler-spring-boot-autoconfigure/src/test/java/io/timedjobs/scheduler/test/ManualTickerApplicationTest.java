package io.timedjobs.scheduler.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A user's test of hourly jobs with {@code @AutoConfigureManualTicker}: hour by hour, each kind
 * of {@code @Scheduled} job runs exactly as often as real time would make it, in milliseconds.
 */
@SpringBootTest(
        classes = ManualTickerApplicationTest.HourlyJobs.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureManualTicker
class ManualTickerApplicationTest {

    @Autowired
    private ManualTicker ticker;

    @Autowired
    private HourlyJobs jobs;

    @Autowired
    private TaskScheduler taskScheduler;

    /**
     * fixedRate runs at start-up and then every hour; fixedDelay with initialDelay after the
     * first hour; cron at the top of every hour. Each advance returns with the runs done.
     */
    @Test
    void shouldRunHourlyJobsHourByHour() {
        assertThat(((LeaderFollowerTaskScheduler) taskScheduler)
                        .getScheduledExecutor()
                        .getTicker())
                .isSameAs(ticker);
        ticker.advance(Duration.ZERO);
        // the clock started at the real now
        assertThat(Duration.between(taskScheduler.getClock().instant(), Instant.now())
                        .abs())
                .isLessThan(Duration.ofMinutes(1));
        assertThat(jobs.fixedRate).hasValue(1);
        assertThat(jobs.fixedDelay).hasValue(0);
        assertThat(jobs.cron).hasValue(0);

        for (int hour = 1; hour <= 3; hour++) {
            ticker.advance(Duration.ofHours(1));

            assertThat(jobs.fixedRate).as("fixedRate after %d h", hour).hasValue(1 + hour);
            assertThat(jobs.fixedDelay).as("fixedDelay after %d h", hour).hasValue(hour);
            assertThat(jobs.cron).as("cron after %d h", hour).hasValue(hour);
        }
        assertThat(Duration.between(Instant.now(), taskScheduler.getClock().instant()))
                .isBetween(Duration.ofHours(3).minusMinutes(1), Duration.ofHours(3));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class HourlyJobs {
        final AtomicInteger fixedRate = new AtomicInteger();
        final AtomicInteger fixedDelay = new AtomicInteger();
        final AtomicInteger cron = new AtomicInteger();

        @Scheduled(fixedRate = 3_600_000)
        void everyHour() {
            fixedRate.incrementAndGet();
        }

        @Scheduled(fixedDelay = 3_600_000, initialDelay = 3_600_000)
        void hourAfterLastRun() {
            fixedDelay.incrementAndGet();
        }

        @Scheduled(cron = "0 0 * * * *")
        void topOfTheHour() {
            cron.incrementAndGet();
        }
    }
}
