package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.lang.ref.WeakReference;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Races of the engine forced at the exact point where they used to go wrong: a ticker or a thread
 * factory holds one thread there while the test drives the others.
 */
@Timeout(60)
class EngineRaceTest {

    private final List<WorkerPool> pools = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        for (WorkerPool pool : pools) {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .isTrue();
        }
    }

    private WorkerPool pool(Ticker ticker, int poolSize, ThreadFactory threads) {
        return pool(ticker, poolSize, threads, TaskErrorHandler.logging());
    }

    private WorkerPool pool(Ticker ticker, int poolSize, ThreadFactory threads, TaskErrorHandler errors) {
        WorkerPool pool = new WorkerPool(new PoolSettings(
                "test",
                poolSize,
                threads,
                ticker,
                true,
                Clock.systemUTC(),
                MisfirePolicy.CATCH_UP,
                errors,
                ExecutionListener.none(),
                true,
                false,
                false,
                null,
                0,
                null,
                null));
        pools.add(pool);
        return pool;
    }

    private static ThreadFactory daemons() {
        AtomicInteger number = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "race-worker-" + number.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * A task accepted while the worker holds the lock, before that worker reads the time, runs
     * before a task due later, even though time passes both due times before the worker reads it.
     */
    @Test
    void shouldRunTaskAcceptedWhileWorkerHoldsLockBeforeLaterOnes() throws InterruptedException {
        GatedTicker ticker = new GatedTicker();
        WorkerPool pool = pool(ticker, 1, daemons());
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch bothRan = new CountDownLatch(2);
        pool.schedule(
                () -> {
                    order.add("due at 1000 ms");
                    bothRan.countDown();
                },
                1_000,
                MILLISECONDS);
        await().atMost(TestDelays.LONG).until(() -> pool.queue().leader() != null);

        GatedTicker.Gate gate = ticker.holdNextReadByAnotherThread();
        pool.timeAdvancedCallback().run(); // the leader wakes up and takes the lock
        gate.awaitArrival(); // ... and is held where it reads the time, with the lock
        pool.schedule(
                () -> {
                    order.add("due at 500 ms");
                    bothRan.countDown();
                },
                500,
                MILLISECONDS);
        ticker.advance(MILLISECONDS.toNanos(1_000));
        gate.open();

        assertThat(bothRan.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThat(order).containsExactly("due at 500 ms", "due at 1000 ms");
    }

    /**
     * A first submission made after shutdown() marked the pool but before it closed the queue is
     * either rejected or run: its future completes, and termination waits for it.
     */
    @Test
    void shouldRunOrRejectFirstTaskSubmittedWhileShuttingDown() throws Exception {
        WorkerPool pool = pool(Ticker.system(), 2, daemons());
        CountDownLatch inWindow = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        pool.lifecycle.afterShutdownMarked = () -> {
            inWindow.countDown();
            await().atMost(TestDelays.LONG).until(() -> proceed.getCount() == 0);
        };
        Thread shuttingDown = new Thread(pool::shutdown, "shutting-down");
        shuttingDown.start();
        assertThat(inWindow.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();

        ScheduledTask<?> task;
        try {
            task = pool.schedule(() -> {}, 0, MILLISECONDS);
        } catch (RejectedExecutionException rejected) {
            task = null;
        }
        proceed.countDown();
        shuttingDown.join(TestDelays.LONG.toMillis());

        if (task != null) {
            task.get(TestDelays.LONG.toMillis(), MILLISECONDS);
            assertThat(task.isDone()).isTrue();
        }
        assertThat(pool.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        assertThat(pool.queueSize()).isZero();
    }

    /**
     * A task cancelled while it waits, unclaimed, in a batch of due tasks is no longer counted,
     * is released at once, and never runs.
     */
    @Test
    void shouldReleaseTaskCancelledInUnclaimedBatch() throws Exception {
        GatedTicker ticker = new GatedTicker();
        WorkerPool pool = pool(ticker, 1, daemons());
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch finishFirst = new CountDownLatch(1);
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        pool.schedule(
                () -> {
                    firstStarted.countDown();
                    awaitQuietly(finishFirst);
                },
                10,
                MILLISECONDS);
        WeakReference<ScheduledTask<?>> cancelled =
                new WeakReference<>(pool.schedule(() -> ran.add("b"), 10, MILLISECONDS));
        ScheduledTask<?> kept = pool.schedule(() -> ran.add("c"), 10, MILLISECONDS);
        ticker.advance(MILLISECONDS.toNanos(10));
        pool.timeAdvancedCallback().run();
        assertThat(firstStarted.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThat(pool.queueSize()).isEqualTo(2); // the other two wait in the worker's batch

        assertThat(cancelled.get().cancel(false)).isTrue();
        assertThat(pool.queueSize()).isEqualTo(1);
        await().atMost(TestDelays.LONG).untilAsserted(() -> {
            System.gc();
            assertThat(cancelled.get() == null).as("cleared").isTrue();
        });

        finishFirst.countDown();
        kept.get(TestDelays.LONG.toMillis(), MILLISECONDS);
        assertThat(ran).containsExactly("c");
        assertThat(pool.queueSize()).isZero();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(3 * TestDelays.LONG.toMillis(), MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Queue depth and lateness are read while a worker holds the queue's lock, and are right:
     * reading a gauge neither waits for the lock nor moves tasks.
     */
    @Test
    void shouldReadGaugesWhileWorkerHoldsLock() throws Exception {
        GatedTicker ticker = new GatedTicker();
        WorkerPool pool = pool(ticker, 1, daemons());
        pool.schedule(() -> {}, 1_000, MILLISECONDS);
        await().atMost(TestDelays.LONG).until(() -> pool.queue().leader() != null);
        GatedTicker.Gate gate = ticker.holdNextReadByAnotherThread();
        pool.timeAdvancedCallback().run();
        gate.awaitArrival(); // the worker holds the lock
        try {
            pool.schedule(() -> {}, 2_000, MILLISECONDS); // left on a stripe for the lock holder
            ticker.advance(MILLISECONDS.toNanos(1_500));
            ExecutorService reader = Executors.newSingleThreadExecutor();
            try {
                Future<long[]> figures = reader.submit(() -> new long[] {pool.queueSize(), pool.overdueNanos()});
                assertThat(figures.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                        .containsExactly(2L, MILLISECONDS.toNanos(500));
            } finally {
                reader.shutdownNow();
            }
        } finally {
            gate.open();
        }
    }

    /**
     * cancel(true) of a running task does not wait for the pool's lock, and the worker that
     * finishes the task meanwhile goes back to the queue instead of spinning: here the pool's lock
     * is held by a thread factory that blocks while it replaces a worker that died.
     */
    @Test
    void shouldCancelRunningTaskWhilePoolLockIsHeld() throws Exception {
        CountDownLatch factoryEntered = new CountDownLatch(1);
        CountDownLatch factoryOpen = new CountDownLatch(1);
        AtomicInteger made = new AtomicInteger();
        ThreadFactory threads = r -> {
            if (made.incrementAndGet() == 3) { // the replacement of the worker that dies below
                factoryEntered.countDown();
                awaitQuietly(factoryOpen); // opened by the test, at the latest when it ends
            }
            Thread t = new Thread(r, "race-worker-" + made.get());
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((thread, e) -> {});
            return t;
        };
        WorkerPool pool = pool(Ticker.system(), 2, threads, failure -> {
            throw new IllegalStateException("the worker dies with this", failure);
        });
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Thread> runner = new AtomicReference<>();
        ScheduledTask<?> running = pool.schedule(
                () -> {
                    runner.set(Thread.currentThread());
                    started.countDown();
                    try {
                        new CountDownLatch(1).await(3 * TestDelays.LONG.toMillis(), MILLISECONDS);
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                    }
                },
                0,
                MILLISECONDS);
        assertThat(started.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        pool.execute(() -> {
            throw new IllegalArgumentException("fails on the other worker");
        });
        assertThat(factoryEntered.await(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
        ExecutorService canceller = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> cancel = canceller.submit(() -> running.cancel(true));
            assertThat(cancel.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
            assertThat(interrupted.await(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .isTrue();
            await().atMost(TestDelays.LONG).until(() -> runner.get().getState() == Thread.State.WAITING);
            assertThat(factoryOpen.getCount()).isOne(); // all of it while the pool's lock was held
        } finally {
            factoryOpen.countDown();
            canceller.shutdownNow();
        }
    }
}
