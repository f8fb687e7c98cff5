package io.timedjobs.scheduler.jdbc.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.timedjobs.scheduler.jdbc.history.FinishedRun;
import io.timedjobs.scheduler.jdbc.history.RunKind;
import io.timedjobs.scheduler.jdbc.history.RunOutcome;
import io.timedjobs.scheduler.testsupport.TestDelays;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The group commit of completions: who writes, what waits, and that nothing is written twice or lost. */
class CompletionGroupTest {

    private static CompletionGroup.Completion completion(long id) {
        ClaimedTask task = new ClaimedTask(id, "mail", "k" + id, null, null, Instant.EPOCH, Instant.EPOCH, 0, 1, null);
        FinishedRun run =
                new FinishedRun(RunKind.TASK, "mail", "k" + id, Instant.EPOCH, "me", 0, RunOutcome.SUCCEEDED, 1, null);
        return new CompletionGroup.Completion(task, run, 0);
    }

    @Test
    void shouldWriteAloneWhenNobodyElseWrites() {
        List<List<Long>> groups = new ArrayList<>();
        CompletionGroup group = new CompletionGroup(
                g -> groups.add(g.stream().map(c -> c.task().id()).toList()));

        group.add(completion(1));
        group.add(completion(2));

        assertThat(groups).containsExactly(List.of(1L), List.of(2L));
        assertThat(group.size()).isZero();
    }

    /**
     * While one worker writes, another's completion is added and that worker goes on at once; the
     * writing worker then writes it, with the others that arrived meanwhile, as one group.
     */
    @Test
    void shouldLeaveCompletionsAddedDuringAWriteToTheWritingWorker() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<List<Long>> groups = new CopyOnWriteArrayList<>();
        List<String> writers = new CopyOnWriteArrayList<>();
        CompletionGroup group = new CompletionGroup(g -> {
            groups.add(g.stream().map(c -> c.task().id()).toList());
            writers.add(Thread.currentThread().getName());
            if (groups.size() == 1) {
                writing.countDown();
                await(release);
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(1, r -> new Thread(r, "first"));
        try {
            Future<?> first = pool.submit(() -> group.add(completion(1)));
            assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();

            group.add(completion(2)); // returns at once: the first worker writes
            group.add(completion(3));
            assertThat(group.size()).isEqualTo(3);
            assertThat(groups).hasSize(1);

            release.countDown();
            first.get(10, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(groups).containsExactly(List.of(1L), List.of(2L, 3L));
        assertThat(writers).containsOnly("first");
        assertThat(group.size()).isZero();
    }

    @Test
    void shouldWriteAtMostAGroupsWorthAtOnce() {
        List<Integer> sizes = new ArrayList<>();
        CompletionGroup[] holder = new CompletionGroup[1];
        AtomicInteger added = new AtomicInteger();
        holder[0] = new CompletionGroup(g -> {
            sizes.add(g.size());
            // while the first group is written, more than a group's worth arrives
            while (added.get() < 2 * CompletionGroup.MAX_GROUP + 1) {
                holder[0].add(completion(added.incrementAndGet()));
            }
        });

        holder[0].add(completion(0));

        assertThat(sizes).containsExactly(1, CompletionGroup.MAX_GROUP, CompletionGroup.MAX_GROUP, 1);
    }

    /** Eight threads add 2,000 completions each while writes take random time: each written exactly once. */
    @Test
    void shouldWriteEveryCompletionExactlyOnceUnderContention() throws Exception {
        Map<Long, AtomicInteger> written = new ConcurrentHashMap<>();
        AtomicInteger concurrentWriters = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CompletionGroup group = new CompletionGroup(g -> {
            if (concurrentWriters.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            g.forEach(c -> written.computeIfAbsent(c.task().id(), id -> new AtomicInteger())
                    .incrementAndGet());
            if (ThreadLocalRandom.current().nextInt(4) == 0) {
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000));
            }
            concurrentWriters.decrementAndGet();
        });
        int threads = 8;
        int each = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = (long) t * each;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        group.add(completion(base + i));
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(written).hasSize(threads * each);
        assertThat(written.values()).allMatch(count -> count.get() == 1);
        assertThat(overlaps.get()).as("two writers at once").isZero();
        assertThat(group.size()).isZero();
    }

    /** Lingering: completions that end within the linger wait for each other and share one write. */
    @Test
    void shouldHoldCompletionsForCompanyWhileLingering() throws Exception {
        List<List<Long>> groups = new CopyOnWriteArrayList<>();
        CompletionGroup group = new CompletionGroup(
                g -> groups.add(g.stream().map(c -> c.task().id()).toList()), Duration.ofHours(1));
        group.startLingering("completions-test");
        try {
            group.add(completion(1));
            group.add(completion(2));
            group.add(completion(3));

            assertThat(groups).as("nothing written before the linger ends").isEmpty();
            assertThat(group.size()).isEqualTo(3);
        } finally {
            group.stopLingering(Duration.ofSeconds(5));
        }
        group.writeWaiting(); // as the engine's stop does: the timer set an hour ahead never fires

        assertThat(groups).containsExactly(List.of(1L, 2L, 3L));
        group.add(completion(4)); // no timer any more: written at once
        assertThat(groups).containsExactly(List.of(1L, 2L, 3L), List.of(4L));
    }

    @Test
    void shouldWriteWhatLingeredOnTheTimersThreadOnceTheLingerEnds() {
        List<List<Long>> groups = new CopyOnWriteArrayList<>();
        List<String> writers = new CopyOnWriteArrayList<>();
        CompletionGroup group = new CompletionGroup(
                g -> {
                    groups.add(g.stream().map(c -> c.task().id()).toList());
                    writers.add(Thread.currentThread().getName());
                },
                Duration.ofMillis(20));
        group.startLingering("completions-test");
        try {
            group.add(completion(1));
            org.awaitility.Awaitility.await().atMost(TestDelays.LONG).until(() -> groups.size() == 1);
            group.add(completion(2)); // the timer fired: this one sets a new one
            org.awaitility.Awaitility.await().atMost(TestDelays.LONG).until(() -> groups.size() == 2);
        } finally {
            stopQuietly(group);
        }

        assertThat(groups).containsExactly(List.of(1L), List.of(2L));
        assertThat(writers).containsOnly("completions-test");
        assertThat(group.size()).isZero();
    }

    @Test
    void shouldWriteAFullGroupAtOnceWhileLingering() {
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        CompletionGroup group = new CompletionGroup(g -> sizes.add(g.size()), Duration.ofHours(1));
        group.startLingering("completions-test");
        try {
            for (int i = 0; i < CompletionGroup.MAX_GROUP; i++) {
                group.add(completion(i));
            }
            assertThat(sizes).containsExactly(CompletionGroup.MAX_GROUP);
        } finally {
            stopQuietly(group);
        }
    }

    /** A timer dropped by a stop does not keep a restarted group from setting a new one. */
    @Test
    void shouldSetANewTimerAfterARestart() {
        List<List<Long>> groups = new CopyOnWriteArrayList<>();
        CompletionGroup group = new CompletionGroup(
                g -> groups.add(g.stream().map(c -> c.task().id()).toList()), Duration.ofMillis(20));
        group.startLingering("completions-test");
        group.add(completion(1));
        stopQuietly(group); // drops the timer before it fires
        group.writeWaiting();
        assertThat(groups).containsExactly(List.of(1L));

        group.startLingering("completions-test");
        try {
            group.add(completion(2));
            org.awaitility.Awaitility.await().atMost(TestDelays.LONG).until(() -> groups.size() == 2);
        } finally {
            stopQuietly(group);
        }
        assertThat(groups).containsExactly(List.of(1L), List.of(2L));
    }

    /**
     * Eight threads add 2,000 completions each while lingering with a linger of a millisecond and
     * writes take random time; the stop then writes what waits: each written exactly once, by one
     * writer at a time.
     */
    @Test
    void shouldWriteEveryCompletionExactlyOnceWhileLingering() throws Exception {
        Map<Long, AtomicInteger> written = new ConcurrentHashMap<>();
        AtomicInteger concurrentWriters = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        CompletionGroup group = new CompletionGroup(
                g -> {
                    if (concurrentWriters.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    g.forEach(c -> written.computeIfAbsent(c.task().id(), id -> new AtomicInteger())
                            .incrementAndGet());
                    if (ThreadLocalRandom.current().nextInt(4) == 0) {
                        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000));
                    }
                    concurrentWriters.decrementAndGet();
                },
                Duration.ofMillis(1));
        group.startLingering("completions-test");
        int threads = 8;
        int each = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long base = (long) t * each;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        group.add(completion(base + i));
                        if (i % 100 == 0) {
                            LockSupport.parkNanos(1_000_000); // let some timers fire between adds
                        }
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            group.stopLingering(Duration.ofSeconds(10));
        }
        group.writeWaiting();

        assertThat(written).hasSize(threads * each);
        assertThat(written.values()).allMatch(count -> count.get() == 1);
        assertThat(overlaps.get()).as("two writers at once").isZero();
        assertThat(group.size()).isZero();
    }

    private static void stopQuietly(CompletionGroup group) {
        try {
            group.stopLingering(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
