package io.timedjobs.benchmarks;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * INSERT-1M-FAR and INSERT-1M-MIXED: how fast producers can schedule while a million tasks are
 * already pending.
 *
 * <p>Each fork builds the peer (2 workers) and fills it with {@code bench.prefill} (1M) tasks due
 * between one minute and one hour from now. Each measured iteration then lets every producer thread
 * schedule one batch of {@code bench.batch} (100k) more tasks, timed as one shot; between iterations
 * the batch is cancelled again (untimed), so the queue holds 1M to 1.2M tasks throughout.
 *
 * <ul>
 *   <li>{@code pending=far}: the batch is due between one minute and one hour out; nothing fires.
 *   <li>{@code pending=mixed}: as far, except that one task in ten is due within a millisecond: a
 *       new head that wakes the leader and runs on a worker while the producers go on.
 * </ul>
 *
 * <p>The score is nanoseconds per schedule call per thread; {@link Compare} turns it into schedule
 * calls per second over all producers.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@State(Scope.Benchmark)
public class InsertBenchmark {

    static final int BATCH = Sizes.size("batch", 100_000);
    static final int PREFILL = Sizes.size("prefill", 1_000_000);
    static final long MINUTE = TimeUnit.MINUTES.toNanos(1);
    static final long HOUR = TimeUnit.HOURS.toNanos(1);
    static final long MILLI = TimeUnit.MILLISECONDS.toNanos(1);
    static final int MAX_PRODUCERS = 8;

    @Param({"lf", "stpe", "stpe-roc", "spring-tpts", "spring-simple", "netty-wheel"})
    public String peer;

    @Param({"far", "mixed"})
    public String pending;

    SchedulerUnderTest scheduler;

    /** The handles of the current batch, one array per producer, cancelled between iterations. */
    final Object[][] batches = new Object[MAX_PRODUCERS][];

    final AtomicInteger producers = new AtomicInteger();

    @Setup(Level.Trial)
    public void setUp() {
        scheduler = Peers.create(peer, 2);
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < PREFILL; i++) {
            scheduler.schedule(BenchTask.NOOP, random.nextLong(MINUTE, HOUR));
        }
    }

    @TearDown(Level.Iteration)
    public void cancelBatch() {
        for (Object[] batch : batches) {
            if (batch == null) {
                continue;
            }
            for (int i = 0; i < batch.length; i++) {
                if (batch[i] != null) {
                    scheduler.cancel(batch[i]);
                    batch[i] = null;
                }
            }
        }
        scheduler.purge();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        scheduler.close();
    }

    /** One producer thread's delays, drawn before the measurement. */
    @State(Scope.Thread)
    public static class Producer {
        long[] delays;
        Object[] handles;

        @Setup(Level.Trial)
        public void setUp(InsertBenchmark bench) {
            int id = bench.producers.getAndIncrement();
            SplittableRandom random = new SplittableRandom(1000 + id);
            boolean mixed = bench.pending.equals("mixed");
            delays = new long[BATCH];
            for (int i = 0; i < BATCH; i++) {
                delays[i] = mixed && random.nextInt(10) == 0 ? random.nextLong(MILLI) : random.nextLong(MINUTE, HOUR);
            }
            handles = new Object[BATCH];
            bench.batches[id] = handles;
        }
    }

    static void insertBatch(InsertBenchmark bench, Producer producer) {
        SchedulerUnderTest scheduler = bench.scheduler;
        long[] delays = producer.delays;
        Object[] handles = producer.handles;
        for (int i = 0; i < delays.length; i++) {
            handles[i] = scheduler.schedule(BenchTask.NOOP, delays[i]);
        }
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(100_000)
    public void oneProducer(Producer producer) {
        insertBatch(this, producer);
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(100_000)
    public void twoProducers(Producer producer) {
        insertBatch(this, producer);
    }
}
