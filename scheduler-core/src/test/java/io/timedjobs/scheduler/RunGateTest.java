package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** What a {@link RunGate} sees, what it can hold or skip, and how its own failures end up. */
@Timeout(60)
class RunGateTest {

    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final List<Object> listened = Collections.synchronizedList(new ArrayList<>());
    private final ConcurrentLinkedQueue<Throwable> handled = new ConcurrentLinkedQueue<>();
    private LeaderFollowerScheduler scheduler;

    @AfterEach
    void stop() throws InterruptedException {
        scheduler.shutdownNow();
        assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isTrue();
    }

    private LeaderFollowerScheduler.Builder builder(RunGate gate) {
        return LeaderFollowerScheduler.builder()
                .poolSize(1)
                .runGate(gate)
                .errorHandler(handled::add)
                .executionListener(new ExecutionListener() {
                    @Override
                    public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {}

                    @Override
                    public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
                        listened.add(work);
                    }
                });
    }

    /** Enter, the work, then exit: once per execution, for every kind of one-shot submission. */
    @Test
    void shouldPassGateOnceAroundEachOneShotExecution() throws Exception {
        RecordingGate gate = new RecordingGate(work -> true);
        scheduler = builder(gate).build();
        Job a = new Job("a");
        NamedCallable b = new NamedCallable("b");
        Job c = new Job("c");
        Job d = new Job("d");
        ScheduledFuture<?> first = scheduler.schedule(a, 0, MILLISECONDS);
        Future<String> second = scheduler.submit(b);
        Future<?> third = scheduler.submit(c);
        scheduler.execute(d);

        assertThat(first.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(second.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isEqualTo("b");
        assertThat(third.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        await().atMost(TestDelays.LONG).until(() -> listened.size() == 4);
        // One worker: executions never overlap, so each one is three events in a row.
        assertThat(events).hasSize(12);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < events.size(); i += 3) {
            String name = events.get(i).substring("enter ".length());
            assertThat(events.subList(i, i + 3)).containsExactly("enter " + name, "run " + name, "exit " + name);
            names.add(name);
        }
        assertThat(names).containsExactlyInAnyOrder("a", "b", "c", "d");
        assertThat(gate.works).as("the very objects submitted").containsExactlyInAnyOrder(a, b, c, d);
        assertThat(listened).as("the listener gets the same objects").containsExactlyInAnyOrder(a, b, c, d);
    }

    /** Every execution of a repeating task passes the gate, each one once. */
    @Test
    void shouldPassGateOnceAroundEachRepeatingExecution() {
        ManualTicker ticker = ManualTicker.startingNow(TestDelays.LONG);
        scheduler = builder(new RecordingGate(work -> true)).ticker(ticker).build();
        scheduler.scheduleAtFixedRate(new Job("r"), 1, 1, SECONDS);
        for (int i = 0; i < 3; i++) {
            ticker.advance(1, SECONDS);
        }
        assertThat(events)
                .containsExactly(
                        "enter r", "run r", "exit r", "enter r", "run r", "exit r", "enter r", "run r", "exit r");
        await().atMost(TestDelays.LONG).until(() -> scheduler.getCompletedTaskCount() == 3);
    }

    /** With virtual threads, the gate is called on the task's own thread, around the work. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void shouldPassGateOnTheTaskThreadWithVirtualThreads() throws Exception {
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
        RunGate gate = new RunGate() {
            @Override
            public boolean enter(Object work) {
                threads.add(Thread.currentThread());
                events.add("enter " + work);
                return true;
            }

            @Override
            public void exit(Object work) {
                threads.add(Thread.currentThread());
                events.add("exit " + work);
            }
        };
        scheduler = builder(gate).virtualThreads(true).build();
        Job job = new Job("v", threads);
        scheduler.schedule(job, 0, MILLISECONDS).get(TestDelays.LONG.toMillis(), MILLISECONDS);
        ScheduledFuture<?> repeating = scheduler.scheduleWithFixedDelay(new Job("w"), 0, 1, MILLISECONDS);
        // the repeating job goes on adding while the lists are read: each is read as a copy made under
        // its lock (iterating a synchronized list as it grows throws ConcurrentModificationException)
        await().atMost(TestDelays.LONG).until(() -> Collections.frequency(copyOf(events), "exit w") >= 2);
        repeating.cancel(false);
        List<String> seen = copyOf(events);
        List<Thread> on = copyOf(threads);

        assertThat(seen.subList(0, 3)).containsExactly("enter v", "run v", "exit v");
        assertThat(on.subList(0, 3)).as("enter, run and exit on one thread").containsOnly(on.get(0));
        assertThat((Boolean) Thread.class.getMethod("isVirtual").invoke(on.get(0)))
                .isTrue();
        assertThat(seen.subList(3, 9)).containsExactly("enter w", "run w", "exit w", "enter w", "run w", "exit w");
    }

    /**
     * A skipped one-shot task completes normally with null, its work never runs, exit is not
     * called, and the execution is neither counted nor reported.
     */
    @Test
    void shouldCompleteSkippedOneShotTaskWithNull() throws Exception {
        scheduler = builder(new RecordingGate(work -> false)).build();
        Future<String> callable = scheduler.submit(new NamedCallable("c"));
        ScheduledFuture<?> runnable = scheduler.schedule(new Job("r"), 0, MILLISECONDS);

        assertThat(callable.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(runnable.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(callable.isCancelled()).isFalse();
        assertThat(events).containsExactly("enter c", "enter r");
        assertThat(scheduler.getCompletedTaskCount()).isZero();
        assertThat(listened).isEmpty();
    }

    /**
     * A repeating task keeps its schedule through skipped executions: it runs again at its next
     * slot, and only the executions that ran are counted.
     */
    @Test
    void shouldKeepScheduleOfRepeatingTaskThroughSkippedExecutions() {
        ManualTicker ticker = ManualTicker.startingNow(TestDelays.LONG);
        AtomicInteger enters = new AtomicInteger();
        scheduler = builder(new RecordingGate(work -> {
                    int n = enters.incrementAndGet();
                    return n != 2 && n != 3;
                }))
                .ticker(ticker)
                .build();
        ScheduledFuture<?> future = scheduler.scheduleAtFixedRate(new Job("r"), 1, 1, SECONDS);
        for (int i = 0; i < 4; i++) {
            ticker.advance(1, SECONDS);
        }
        assertThat(events)
                .containsExactly("enter r", "run r", "exit r", "enter r", "enter r", "enter r", "run r", "exit r");
        assertThat(future.isDone()).isFalse();
        assertThat(future.getDelay(SECONDS)).as("the next slot, at 5 s").isEqualTo(1);
        await().atMost(TestDelays.LONG).until(() -> scheduler.getCompletedTaskCount() == 2);
        assertThat(listened).hasSize(2);
    }

    /** A gate that blocks holds the task until it opens; the work then runs. */
    @Test
    void shouldHoldTaskWhileGateBlocks() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(1);
        scheduler = builder(new RecordingGate(work -> {
                    entered.countDown();
                    ScheduledExecutorContractTest.awaitQuietly(open);
                    return true;
                }))
                .build();
        ScheduledFuture<?> future = scheduler.schedule(new Job("held"), 0, MILLISECONDS);

        assertThat(entered.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThat(events).as("the worker is inside enter").containsExactly("enter held");
        assertThat(future.isDone()).isFalse();
        assertThat(scheduler.getActiveCount()).isEqualTo(1);
        open.countDown();
        assertThat(future.get(TestDelays.LONG.toMillis(), MILLISECONDS)).isNull();
        assertThat(events).containsExactly("enter held", "run held", "exit held");
    }

    /** A cancel(true) interrupts a task held in the gate; a gate that gives up skips the work. */
    @Test
    void shouldInterruptTaskHeldInGateOnCancel() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        scheduler = builder(new RecordingGate(work -> {
                    if (!work.toString().equals("held")) {
                        return true;
                    }
                    entered.countDown();
                    try {
                        never.await(TestDelays.LONG.toMillis(), MILLISECONDS);
                        return true;
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        return false;
                    }
                }))
                .build();
        ScheduledFuture<?> future = scheduler.schedule(new Job("held"), 0, MILLISECONDS);
        assertThat(entered.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();

        assertThat(future.cancel(true)).isTrue();
        assertThat(interrupted.await(TestDelays.LONG.toMillis(), MILLISECONDS)).isTrue();
        assertThatThrownBy(future::get).isInstanceOf(CancellationException.class);
        // The worker is free again and its interrupt is gone: the next task runs normally.
        assertThat(scheduler.submit(new NamedCallable("next")).get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isEqualTo("next");
        assertThat(events).doesNotContain("run held", "exit held");
    }

    /**
     * A gate whose enter throws fails the execution: the work does not run, exit is not called,
     * and the failure goes where the task's failures go.
     */
    @Test
    void shouldFailExecutionWhenEnterThrows() {
        IllegalStateException refused = new IllegalStateException("gate broke");
        scheduler = builder(new RecordingGate(work -> {
                    throw refused;
                }))
                .build();
        ScheduledFuture<?> oneShot = scheduler.schedule(new Job("once"), 0, MILLISECONDS);
        assertThatThrownBy(() -> oneShot.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(refused);

        ScheduledFuture<?> repeating = scheduler.scheduleAtFixedRate(new Job("again"), 0, 1, MILLISECONDS);
        assertThatThrownBy(() -> repeating.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(refused);
        assertThat(handled)
                .as("the error handler sees the repeating task's failure")
                .containsExactly(refused);
        assertThat(events).containsExactly("enter once", "enter again");
        await().atMost(TestDelays.LONG).until(() -> scheduler.getFailedTaskCount() == 2);
    }

    /**
     * A gate whose exit throws fails an execution that succeeded; when the work threw too, its
     * own failure stays the one reported, with the gate's attached as suppressed.
     */
    @Test
    void shouldFailExecutionWhenExitThrows() {
        IllegalStateException fromExit = new IllegalStateException("exit broke");
        RecordingGate gate = new RecordingGate(work -> true) {
            @Override
            public void exit(Object work) {
                super.exit(work);
                throw fromExit;
            }
        };
        scheduler = builder(gate).build();
        ScheduledFuture<?> succeeded = scheduler.schedule(new Job("fine"), 0, MILLISECONDS);
        assertThatThrownBy(() -> succeeded.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(fromExit);

        IllegalArgumentException fromWork = new IllegalArgumentException("work broke");
        Future<?> failed = scheduler.submit(() -> {
            throw fromWork;
        });
        assertThatThrownBy(() -> failed.get(TestDelays.LONG.toMillis(), MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCause(fromWork);
        assertThat(fromWork.getSuppressed()).containsExactly(fromExit);
    }

    /** A gate that records each call, and lets each execution through as the rule says. */
    private class RecordingGate implements RunGate {
        private final Predicate<Object> admit;
        final List<Object> works = Collections.synchronizedList(new ArrayList<>());

        RecordingGate(Predicate<Object> admit) {
            this.admit = admit;
        }

        @Override
        public boolean enter(Object work) {
            events.add("enter " + work);
            works.add(work);
            return admit.test(work);
        }

        @Override
        public void exit(Object work) {
            events.add("exit " + work);
        }
    }

    /** A Runnable that records its runs, by name. */
    private static <T> List<T> copyOf(List<T> synchronizedList) {
        synchronized (synchronizedList) {
            return new ArrayList<>(synchronizedList);
        }
    }

    private class Job implements Runnable {
        private final String name;
        private final List<Thread> threads;

        Job(String name) {
            this(name, new ArrayList<>());
        }

        Job(String name, List<Thread> threads) {
            this.name = name;
            this.threads = threads;
        }

        @Override
        public void run() {
            threads.add(Thread.currentThread());
            events.add("run " + name);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A Callable that records its calls and returns its name. */
    private class NamedCallable implements Callable<String> {
        private final String name;

        NamedCallable(String name) {
            this.name = name;
        }

        @Override
        public String call() {
            events.add("run " + name);
            return name;
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
