package io.timedjobs.scheduler.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.spring.LeaderFollowerTaskScheduler;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/** Closing a real application context applies the timed-jobs.shutdown.* properties. */
@ExtendWith(OutputCaptureExtension.class)
class ShutdownPropertiesTest {

    private static ConfigurableApplicationContext start(String... properties) {
        return new SpringApplicationBuilder(ShutdownApplication.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .run();
    }

    private static LeaderFollowerTaskScheduler scheduler(ConfigurableApplicationContext context) {
        return context.getBean(LeaderFollowerTaskScheduler.class);
    }

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .isTrue();
    }

    /** By default (await-termination=true) closing waits for a running task to finish. */
    @Test
    void shouldWaitForRunningTaskOnClose() throws Exception {
        ConfigurableApplicationContext context = start();
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean finished = new AtomicBoolean();
        scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    finished.set(true);
                },
                Instant.now());
        awaitLatch(started);
        AtomicBoolean finishedWhenCloseReturned = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            context.close();
            finishedWhenCloseReturned.set(finished.get());
        });

        closer.start();
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().isShutdown());
        release.countDown();
        closer.join(TestDelays.LONG.toMillis());

        assertThat(closer.isAlive()).isFalse();
        assertThat(finishedWhenCloseReturned).isTrue();
    }

    /**
     * A one-shot task due after the await period does not hold closing up for the whole period:
     * it could not run within the wait, so it is cancelled at once, while one due within the
     * period still runs.
     */
    @Test
    void shouldNotWaitForTasksDueAfterAwaitPeriod() throws Exception {
        ConfigurableApplicationContext context = start("timed-jobs.shutdown.await-termination-period=1h");
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        ScheduledFuture<?> inTwoHours =
                scheduler.schedule(() -> {}, Instant.now().plus(Duration.ofHours(2)));
        CountDownLatch soonRan = new CountDownLatch(1);
        scheduler.schedule(soonRan::countDown, Instant.now().plusMillis(50));
        Thread closer = new Thread(context::close);
        closer.start();
        closer.join(TestDelays.LONG.toMillis());
        assertThat(closer.isAlive()).as("close still waiting").isFalse();
        assertThat(soonRan.getCount()).isZero();
        assertThat(inTwoHours.isCancelled()).isTrue();
        assertThat(scheduler.getScheduledExecutor().isTerminated()).isTrue();
    }

    /**
     * An await period of zero means no wait: closing cancels every waiting task not yet due, so
     * that nothing keeps the scheduler (and the JVM) alive after the context is gone.
     */
    @Test
    void shouldDropWaitingTasksWithZeroAwaitPeriod() {
        ConfigurableApplicationContext context = start("timed-jobs.shutdown.await-termination-period=0s");
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        ScheduledFuture<?> inAnHour = scheduler.schedule(() -> {}, Instant.now().plus(Duration.ofHours(1)));
        ScheduledFuture<?> repeating = scheduler.scheduleAtFixedRate(() -> {}, Duration.ofHours(1));
        context.close();
        assertThat(inAnHour.isCancelled()).isTrue();
        // Its first run starts at once and may still be under way as the context closes (a zero
        // await period does not wait for it): then it is cancelled as that run ends.
        await().atMost(TestDelays.LONG).until(repeating::isCancelled);
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().isTerminated());
    }

    /** With await-termination=false, closing interrupts the running task instead of waiting. */
    @Test
    void shouldInterruptRunningTaskWhenNotAwaiting() throws Exception {
        ConfigurableApplicationContext context = start("timed-jobs.shutdown.await-termination=false");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        scheduler(context)
                .schedule(
                        () -> {
                            started.countDown();
                            try {
                                never.await();
                            } catch (InterruptedException e) {
                                interrupted.countDown();
                            }
                        },
                        Instant.now());
        awaitLatch(started);

        context.close();

        awaitLatch(interrupted);
    }

    /** execute-existing-delayed-tasks=true (default): a one-shot due soon still runs during close. */
    @Test
    void shouldRunDelayedOneShotDuringClose() {
        ConfigurableApplicationContext context = start();
        AtomicBoolean ran = new AtomicBoolean();
        scheduler(context).schedule(() -> ran.set(true), Instant.now().plusMillis(300));

        context.close();

        assertThat(ran).isTrue();
    }

    /** execute-existing-delayed-tasks=false: a waiting one-shot is cancelled at close and never runs. */
    @Test
    void shouldCancelDelayedOneShotWhenNotExecutingExisting() {
        ConfigurableApplicationContext context = start("timed-jobs.shutdown.execute-existing-delayed-tasks=false");
        AtomicBoolean ran = new AtomicBoolean();
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        ScheduledFuture<?> future =
                scheduler.schedule(() -> ran.set(true), Instant.now().plusSeconds(3600));

        context.close();

        assertThat(future.isCancelled()).isTrue();
        assertThat(ran).isFalse();
        assertThat(scheduler.getScheduledExecutor().isTerminated()).isTrue();
    }

    /** continue-existing-periodic-tasks=false (default): repeating tasks stop at close. */
    @Test
    void shouldStopPeriodicTasksOnClose() {
        ConfigurableApplicationContext context = start();
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(() -> {}, Duration.ofHours(1));

        context.close();

        assertThat(future.isCancelled()).isTrue();
        assertThat(scheduler.getScheduledExecutor().isTerminated()).isTrue();
    }

    /**
     * continue-existing-periodic-tasks=true: repeating tasks keep running after shutdown, until
     * the await period ends.
     */
    @Test
    void shouldKeepPeriodicTasksRunningAfterShutdownWhenAsked() throws Exception {
        ConfigurableApplicationContext context = start(
                "timed-jobs.shutdown.continue-existing-periodic-tasks=true",
                "timed-jobs.shutdown.await-termination-period=2s");
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        CountDownLatch ranAfterShutdown = new CountDownLatch(2);
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(
                () -> {
                    if (scheduler.getScheduledExecutor().isShutdown()) {
                        ranAfterShutdown.countDown();
                    }
                },
                Duration.ofMillis(20));

        context.close();

        awaitLatch(ranAfterShutdown);
        // the await period ended: the scheduler was stopped for good
        await().atMost(TestDelays.LONG).until(future::isCancelled);
        await().atMost(TestDelays.LONG)
                .until(() -> scheduler.getScheduledExecutor().isTerminated());
    }

    /** Closing logs one line with the waiting tasks dropped and the running ones interrupted. */
    @Test
    void shouldLogDroppedAndInterruptedTasksOnClose(CapturedOutput output) throws Exception {
        ConfigurableApplicationContext context = start("timed-jobs.shutdown.await-termination=false");
        CountDownLatch started = new CountDownLatch(1);
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        scheduler.schedule(() -> {}, Instant.now().plus(Duration.ofHours(1)));
        scheduler.schedule(() -> {}, Instant.now().plus(Duration.ofHours(2)));
        scheduler.schedule(
                () -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                Instant.now());
        awaitLatch(started);

        context.close();

        assertThat(output)
                .contains("LeaderFollowerTaskScheduler 'taskScheduler' shut down: 2 waiting task(s) dropped,"
                        + " 1 running task(s) interrupted");
    }

    /** With the default graceful close, a one-off task due after the await period is dropped, and said so. */
    @Test
    void shouldLogOneOffDroppedByGracefulClose(CapturedOutput output) {
        ConfigurableApplicationContext context = start();
        ScheduledFuture<?> inAnHour =
                scheduler(context).schedule(() -> {}, Instant.now().plus(Duration.ofHours(1)));

        context.close();

        assertThat(inAnHour.isCancelled()).isTrue();
        assertThat(output)
                .contains("LeaderFollowerTaskScheduler 'taskScheduler' shut down: 1 waiting task(s) dropped,"
                        + " 0 running task(s) interrupted");
    }

    /**
     * Spring's shutdown phase timeout bounds the wait for a running task, even with a far longer
     * await period: the task is interrupted once the phase times out (the test would otherwise
     * hit its own time limit).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldBoundWaitByShutdownPhaseTimeout(CapturedOutput output) throws Exception {
        ConfigurableApplicationContext context = start(
                "timed-jobs.shutdown.await-termination-period=1h", "spring.lifecycle.timeout-per-shutdown-phase=200ms");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        scheduler(context)
                .schedule(
                        () -> {
                            started.countDown();
                            try {
                                new CountDownLatch(1).await();
                            } catch (InterruptedException e) {
                                interrupted.countDown();
                            }
                        },
                        Instant.now());
        awaitLatch(started);

        context.close();

        awaitLatch(interrupted);
        assertThat(output).contains("0 waiting task(s) dropped, 1 running task(s) interrupted");
    }

    /** An explicit stop() of a running context waits for the running task only, and start() resumes. */
    @Test
    void shouldStopAndRestartContextWithoutWaitingOutPhaseTimeout() throws Exception {
        ConfigurableApplicationContext context = start("spring.lifecycle.timeout-per-shutdown-phase=1h");
        LeaderFollowerTaskScheduler scheduler = scheduler(context);
        CountDownLatch ranAfterRestart = new CountDownLatch(1);

        context.stop();
        assertThat(scheduler.isRunning()).isFalse();
        scheduler.schedule(ranAfterRestart::countDown, Instant.now());
        context.start();

        awaitLatch(ranAfterRestart);
        context.close();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ShutdownApplication {}
}
