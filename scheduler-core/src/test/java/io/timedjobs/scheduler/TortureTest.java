package io.timedjobs.scheduler;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * Random rounds of producers, cancellers, a manual ticker moving under them and a shutdown racing
 * the submissions, each checked against what the contract says must have happened: every task
 * accepted and not cancelled ran exactly once, none before its due time, nothing is left behind,
 * and with one worker a task accepted before its due time never ran after a task due later. Some
 * rounds end with shutdownNow, racing the producers or the workers draining due tasks: then every
 * accepted task that was not cancelled ran or was returned, never both, but for at most one per
 * worker (taken as shutdownNow began), cancelled instead.
 *
 * <p>Short by default; {@code -Dtimedjobs.torture.seconds=600} (or {@code -P torture}) runs it
 * long, and {@code -Dtimedjobs.torture.seed=...} repeats the rounds of a failure, whose seed the
 * failure message names.
 */
class TortureTest {

    private static final long SECONDS = Long.getLong("timedjobs.torture.seconds", 3);

    private static final long BASE_SEED = Long.getLong("timedjobs.torture.seed", System.nanoTime());

    /** Rounds with one worker check the exact order; the others check exactly-once and timing. */
    @Test
    void shouldKeepTheContractUnderRandomRounds() throws Exception {
        SplittableRandom seeds = new SplittableRandom(BASE_SEED);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        int rounds = 0;
        do {
            long seed = seeds.nextLong();
            try {
                new Round(seed).run();
            } catch (Throwable failure) {
                throw new AssertionError(
                        "round " + rounds + " failed; repeat with -Dtimedjobs.torture.seed=" + BASE_SEED
                                + " (round seed " + seed + ")",
                        failure);
            }
            rounds++;
        } while (System.nanoTime() - deadline < 0 || rounds < 3);
        System.out.println("TortureTest: " + rounds + " rounds in " + SECONDS + " s, seed " + BASE_SEED);
    }

    /**
     * A manual ticker whose readers sometimes yield their processor right before they read, as if
     * preempted: this widens the windows between a reading and what a thread did just before it.
     */
    private static final class JitteryTicker implements Ticker {
        private final ManualTicker time;
        volatile Runnable onAdvance = () -> {};

        JitteryTicker(ManualTicker time) {
            this.time = time;
        }

        @Override
        public long read() {
            if (ThreadLocalRandom.current().nextInt(8) == 0) {
                Thread.yield();
            }
            return time.read();
        }

        void advance(long amount, TimeUnit unit) {
            time.advance(amount, unit);
            onAdvance.run();
        }
    }

    /** One scheduler, driven at random from one seed. */
    private static final class Round {
        final SplittableRandom random;
        final int workers;
        final int producers;
        final int perProducer;
        final boolean shutdownRacing;

        /** How the round ends: 0 drains everything; 1 shutdownNow races the producers; 2 the workers. */
        final int ending;

        /** What shutdownNow returned, once it ran. */
        volatile List<Runnable> returned = List.of();

        final JitteryTicker ticker;
        final WorkerPool scheduler;

        final int capacity;
        final AtomicReferenceArray<ScheduledTask<?>> tasks;
        final long[] acceptedBy; // a ticker reading taken after the submission returned
        final AtomicIntegerArray runs;
        final long[] startedAt;
        final AtomicIntegerArray cancelled; // 1: cancel returned true
        final ConcurrentLinkedQueue<Integer> runOrder = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Integer> accepted = new ConcurrentLinkedQueue<>();

        Round(long seed) {
            this.random = new SplittableRandom(seed);
            this.workers = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 1;
            this.producers = 1 + random.nextInt(4);
            this.perProducer = 50 + random.nextInt(400);
            this.shutdownRacing = random.nextInt(3) == 0;
            this.ending = random.nextInt(4) == 0 ? 1 + random.nextInt(2) : 0;
            long start = random.nextInt(4) == 0 ? Long.MAX_VALUE - random.nextLong(1L << 32) : random.nextLong();
            this.ticker = new JitteryTicker(new ManualTicker(start, Instant.EPOCH));
            this.scheduler = new WorkerPool(new PoolSettings(
                    "torture",
                    workers,
                    r -> {
                        Thread t = new Thread(r, "torture-worker");
                        t.setDaemon(true);
                        return t;
                    },
                    ticker,
                    true,
                    Clock.systemUTC(),
                    MisfirePolicy.CATCH_UP,
                    TaskErrorHandler.logging(),
                    ExecutionListener.none(),
                    true,
                    false,
                    false,
                    null,
                    0,
                    null,
                    null));
            this.ticker.onAdvance = scheduler.timeAdvancedCallback();
            scheduler.prestartWorker();
            this.capacity = producers * perProducer;
            this.tasks = new AtomicReferenceArray<>(capacity);
            this.acceptedBy = new long[capacity];
            this.runs = new AtomicIntegerArray(capacity);
            this.startedAt = new long[capacity];
            this.cancelled = new AtomicIntegerArray(capacity);
        }

        void run() throws Exception {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                long producerSeed = random.nextLong();
                int first = p * perProducer;
                threads.add(new Thread(() -> produce(go, new SplittableRandom(producerSeed), first), "producer"));
            }
            long cancellerSeed = random.nextLong();
            threads.add(new Thread(() -> cancel(go, new SplittableRandom(cancellerSeed)), "canceller"));
            long tickerSeed = random.nextLong();
            threads.add(new Thread(() -> advance(go, new SplittableRandom(tickerSeed)), "ticker"));
            if (shutdownRacing) {
                threads.add(new Thread(
                        () -> {
                            await(go);
                            Thread.yield();
                            scheduler.shutdown();
                        },
                        "shutdown"));
            }
            if (ending == 1) {
                threads.add(new Thread(
                        () -> {
                            await(go);
                            Thread.yield();
                            returned = scheduler.shutdownNow();
                        },
                        "shutdownNow"));
            }
            threads.forEach(Thread::start);
            go.countDown();
            for (Thread t : threads) {
                t.join(TestDelays.LONG.toMillis());
                assertThat(t.isAlive()).as("%s still running", t.getName()).isFalse();
            }
            // Everything accepted comes due now; then the scheduler must drain to nothing.
            ticker.advance(2, TimeUnit.HOURS);
            if (ending != 0) {
                if (ending == 2) {
                    returned = scheduler.shutdownNow(); // while the workers drain what just came due
                }
                assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                        .isTrue();
                check();
                return;
            }
            long waitUntil = System.nanoTime() + TestDelays.LONG.toNanos();
            while (!allSettled()) {
                assertThat(System.nanoTime() - waitUntil).as("tasks left unrun").isNegative();
                Thread.onSpinWait();
            }
            scheduler.shutdown();
            assertThat(scheduler.awaitTermination(TestDelays.LONG.toMillis(), MILLISECONDS))
                    .isTrue();
            assertThat(scheduler.queueSize()).isZero();
            check();
        }

        private void produce(CountDownLatch go, SplittableRandom random, int first) {
            await(go);
            for (int i = first; i < first + perProducer; i++) {
                int id = i;
                long delay = delay(random);
                try {
                    ScheduledTask<?> task = scheduler.schedule(
                            () -> {
                                startedAt[id] = ticker.read();
                                runs.incrementAndGet(id);
                                runOrder.add(id);
                            },
                            delay,
                            NANOSECONDS);
                    acceptedBy[id] = ticker.read();
                    tasks.set(id, task);
                    accepted.add(id);
                } catch (RejectedExecutionException rejected) {
                    assertThat(scheduler.isShutdown()).isTrue();
                }
            }
        }

        /** Delays from none to minutes, with many equal ones, across the wheel's buckets. */
        private static long delay(SplittableRandom random) {
            return switch (random.nextInt(6)) {
                case 0 -> 0L;
                case 1 -> random.nextLong(MILLISECONDS.toNanos(2));
                case 2 -> MILLISECONDS.toNanos(random.nextInt(20)); // equal due times
                case 3 -> random.nextLong(TimeUnit.SECONDS.toNanos(3));
                case 4 -> MILLISECONDS.toNanos(268 * random.nextInt(8)); // bucket edges, about
                default -> random.nextLong(TimeUnit.MINUTES.toNanos(20));
            };
        }

        private void cancel(CountDownLatch go, SplittableRandom random) {
            await(go);
            int attempts = capacity / 4;
            for (int n = 0; n < attempts; n++) {
                Integer id = accepted.poll();
                if (id == null) {
                    Thread.yield();
                    continue;
                }
                if (random.nextInt(3) == 0) {
                    ScheduledTask<?> task = tasks.get(id);
                    if (task.cancel(random.nextBoolean())) {
                        cancelled.set(id, 1);
                    }
                }
            }
        }

        private void advance(CountDownLatch go, SplittableRandom random) {
            await(go);
            for (int n = 0; n < 200; n++) {
                ticker.advance(random.nextLong(MILLISECONDS.toNanos(300)), NANOSECONDS);
                Thread.yield();
            }
        }

        private boolean allSettled() {
            for (int id = 0; id < capacity; id++) {
                ScheduledTask<?> task = tasks.get(id);
                if (task != null && !task.isDone()) {
                    return false;
                }
            }
            return true;
        }

        private void check() {
            long previousTime = 0;
            int previousSequence = 0;
            boolean any = false;
            for (int id : runOrder) {
                ScheduledTask<?> task = tasks.get(id);
                if (task == null) { // rejected: checked below
                    continue;
                }
                assertThat(startedAt[id] - task.time)
                        .as("task %d started before its due time", id)
                        .isNotNegative();
                if (workers == 1) {
                    boolean acceptedBeforeDue = acceptedBy[id] - task.time < 0;
                    boolean afterLaterOne = any
                            && (previousTime - task.time > 0
                                    || (previousTime == task.time && previousSequence - task.sequence > 0));
                    assertThat(acceptedBeforeDue && afterLaterOne)
                            .as(
                                    "task %d, due %d and accepted before that, ran after one due at %d",
                                    id, task.time, previousTime)
                            .isFalse();
                    if (!any
                            || task.time - previousTime > 0
                            || (task.time == previousTime && task.sequence - previousSequence > 0)) {
                        previousTime = task.time;
                        previousSequence = task.sequence;
                    }
                    any = true;
                }
            }
            Set<Runnable> neverRan = Collections.newSetFromMap(new IdentityHashMap<>());
            neverRan.addAll(returned);
            assertThat(neverRan).as("tasks returned twice").hasSameSizeAs(returned);
            int cancelledInsteadOfReturned = 0;
            for (int id = 0; id < capacity; id++) {
                ScheduledTask<?> task = tasks.get(id);
                if (task == null) {
                    assertThat(runs.get(id)).as("rejected task %d ran", id).isZero();
                    continue;
                }
                assertThat(runs.get(id)).as("runs of task %d", id).isLessThanOrEqualTo(1);
                boolean wasReturned = neverRan.contains(task);
                assertThat(runs.get(id) == 1 && wasReturned)
                        .as("task %d ran and was returned by shutdownNow", id)
                        .isFalse();
                if (cancelled.get(id) == 0 && !wasReturned && runs.get(id) == 0) {
                    assertThat(ending)
                            .as("task %d never cancelled and never ran", id)
                            .isNotZero();
                    assertThat(task.isCancelled())
                            .as("task %d neither ran nor was returned, yet not cancelled", id)
                            .isTrue();
                    cancelledInsteadOfReturned++;
                }
            }
            assertThat(cancelledInsteadOfReturned)
                    .as("tasks cancelled instead of returned by shutdownNow, with %d workers", workers)
                    .isLessThanOrEqualTo(workers);
        }

        private static void await(CountDownLatch go) {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
