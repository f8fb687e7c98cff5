package io.timedjobs.scheduler.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.timedjobs.scheduler.ManualTicker;
import io.timedjobs.scheduler.autoconfigure.SchedulerAutoConfiguration;
import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What {@code ManualTicker.advance} waits for, and how it fails when a task does not finish. */
class ManualTickerAdvanceTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SchedulerAutoConfiguration.class))
            .withConfiguration(AutoConfigurations.of(ManualTickerAutoConfiguration.class));

    /**
     * An advance returns after the tasks that came due, a catch-up burst of a fixed-rate task,
     * and a task that a due task scheduled for now, have all run.
     */
    @Test
    void shouldReturnAfterBurstsAndChainedTasksRan() {
        runner.withPropertyValues("timed-jobs.pool-size=2").run(context -> {
            ManualTicker ticker = context.getBean(ManualTicker.class);
            LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
            ticker.advance(Duration.ZERO);
            Instant start = scheduler.getClock().instant();
            AtomicInteger rate = new AtomicInteger();
            AtomicInteger chained = new AtomicInteger();
            scheduler.scheduleAtFixedRate(rate::incrementAndGet, start.plusSeconds(60), Duration.ofMinutes(1));
            scheduler.schedule(
                    () -> scheduler.schedule(
                            () -> scheduler.schedule(
                                    chained::incrementAndGet,
                                    scheduler.getClock().instant()),
                            scheduler.getClock().instant()),
                    start.plusSeconds(30));

            ticker.advance(Duration.ofMinutes(10));

            assertThat(rate).hasValue(10);
            assertThat(chained).hasValue(1);
        });
    }

    /**
     * The clock of a ticker made for application tests reads the real time until the first
     * advance, and from then on moves only with the ticker.
     */
    @Test
    void shouldFollowRealTimeUntilFirstAdvance() {
        ManualTicker ticker = ManualTicker.startingNow(Duration.ofSeconds(1));
        Instant before = Instant.now();
        Instant read = ticker.clock().instant();
        assertThat(read).isBetween(before, Instant.now());

        ticker.advance(Duration.ofHours(1));
        Instant fixed = ticker.clock().instant();
        assertThat(ticker.clock().instant()).isEqualTo(fixed);
        assertThat(Duration.between(Instant.now(), fixed)).isBetween(Duration.ofMinutes(59), Duration.ofHours(1));

        ticker.advance(Duration.ofMinutes(1));
        assertThat(ticker.clock().instant()).isEqualTo(fixed.plus(Duration.ofMinutes(1)));
    }

    /** A task that does not finish makes the advance fail within its bound, naming the task's code. */
    @Test
    void shouldNameTaskThatDidNotFinish() {
        runner.withUserConfiguration(ShortWait.class).run(context -> {
            ManualTicker ticker = context.getBean(ManualTicker.class);
            LeaderFollowerTaskScheduler scheduler = context.getBean(LeaderFollowerTaskScheduler.class);
            CountDownLatch release = new CountDownLatch(1);
            ticker.advance(Duration.ZERO);
            scheduler.schedule(
                    () -> StuckJob.waitFor(release),
                    scheduler.getClock().instant().plusSeconds(1));
            try {
                assertThatIllegalStateException()
                        .isThrownBy(() -> ticker.advance(Duration.ofSeconds(1)))
                        .withMessageContaining("did not finish within PT0.2S")
                        .withMessageContaining(StuckJob.class.getName() + ".waitFor");
            } finally {
                release.countDown();
            }
        });
    }

    /** Stands for a user's job that hangs. */
    static final class StuckJob {
        static void waitFor(CountDownLatch release) {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ShortWait {
        @Bean
        ManualTicker manualTicker() {
            return ManualTicker.startingNow(Duration.ofMillis(200));
        }
    }
}
