package io.timedjobs.scheduler.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.test.AutoConfigureManualTicker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** @AutoConfigureManualTicker in a Spring Boot 3.5 application: an hourly job tested in milliseconds. */
@SpringBootTest(classes = Boot35ManualTickerTest.HourlyJob.class, webEnvironment = SpringBootTest.WebEnvironment.NONE)
@AutoConfigureManualTicker
class Boot35ManualTickerTest {

    @Autowired
    private ManualTicker ticker;

    @Autowired
    private HourlyJob job;

    /** Start-up run, then one per hour advanced. */
    @Test
    void shouldRunHourlyJobOncePerHourAdvanced() {
        ticker.advance(Duration.ZERO);
        ticker.advance(Duration.ofHours(3));

        assertThat(job.runs).hasValue(4);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    static class HourlyJob {
        final AtomicInteger runs = new AtomicInteger();

        @Scheduled(fixedRate = 3_600_000)
        void everyHour() {
            runs.incrementAndGet();
        }
    }
}
