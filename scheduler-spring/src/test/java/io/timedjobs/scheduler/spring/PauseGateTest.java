package io.timedjobs.scheduler.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The stop callback of {@link PauseGate}: run once, as soon as nothing runs, never dropped. */
class PauseGateTest {

    private static void awaitLatch(CountDownLatch latch) throws InterruptedException {
        assertThat(latch.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS))
                .as("event within %s", TestDelays.LONG)
                .isTrue();
    }

    /**
     * A task that counted itself before stop(callback) and then finds the gate paused is the last
     * one running: it calls the stopper back at once, while the gate is still paused, instead of
     * after the next start().
     */
    @Test
    void shouldCallBackWhenLastCountedTaskFindsGatePaused() throws Exception {
        CountDownLatch counted = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        PauseGate gate = new PauseGate(() -> {
            counted.countDown();
            try {
                proceed.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        AtomicBoolean taskRan = new AtomicBoolean();
        Thread worker = new Thread(() -> {
            gate.enter();
            try {
                taskRan.set(true);
            } finally {
                gate.exit();
            }
        });
        worker.start();
        awaitLatch(counted);
        CountDownLatch stopped = new CountDownLatch(1);

        gate.stop(stopped::countDown);
        assertThat(stopped.getCount()).as("a counted task is running").isEqualTo(1);
        proceed.countDown();

        try {
            awaitLatch(stopped);
            assertThat(gate.isPaused()).isTrue();
            assertThat(taskRan).as("the task waits for the gate to open").isFalse();
        } finally {
            gate.start();
            worker.join(TestDelays.LONG.toMillis());
        }
        assertThat(taskRan).isTrue();
    }

    /** start() while a stop callback is pending runs it: the stopper is not left waiting. */
    @Test
    void shouldRunPendingStopCallbackOnStart() {
        PauseGate gate = new PauseGate();
        AtomicBoolean calledBack = new AtomicBoolean();
        gate.enter();

        gate.stop(() -> calledBack.set(true));
        assertThat(calledBack).isFalse();
        gate.start();

        assertThat(calledBack).isTrue();
        gate.exit();
    }

    /** A stop without callback keeps the pending callback of an earlier stop(callback). */
    @Test
    void shouldKeepPendingStopCallbackThroughPlainStop() {
        PauseGate gate = new PauseGate();
        AtomicBoolean calledBack = new AtomicBoolean();
        gate.enter();

        gate.stop(() -> calledBack.set(true));
        gate.stop(null);
        gate.exit();

        assertThat(calledBack).isTrue();
    }

    /** The callback runs exactly once, when the last running task leaves. */
    @Test
    void shouldCallBackOnceWhenLastTaskExits() {
        PauseGate gate = new PauseGate();
        int[] calls = new int[1];
        gate.enter();
        gate.enter();

        gate.stop(() -> calls[0]++);
        gate.exit();
        assertThat(calls[0]).isZero();
        gate.exit();
        gate.start();

        assertThat(calls[0]).isEqualTo(1);
    }
}
