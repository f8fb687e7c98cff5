package io.timedjobs.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * CHURN-TIMEOUT: the timeout pattern. Each operation schedules a task due in 10 s (a request
 * timeout) and cancels the one this producer scheduled {@value #WINDOW} operations earlier (the
 * request that has just completed), so each producer keeps {@value #WINDOW} timeouts live and none
 * ever fires. The score is operations (one schedule plus one cancel) per second over all producers.
 *
 * <p>A peer that keeps cancelled tasks until their due time (the JDK's executor without
 * remove-on-cancel, Spring's schedulers built on it) accumulates them here, as it would in an
 * application; its memory cost after a million such operations is measured by {@link Memory}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ChurnBenchmark {

    static final int WINDOW = 1024;
    static final long TIMEOUT = TimeUnit.SECONDS.toNanos(10);

    @Param({"lf", "stpe", "stpe-roc", "spring-tpts", "spring-simple", "netty-wheel"})
    public String peer;

    SchedulerUnderTest scheduler;

    @Setup(Level.Trial)
    public void setUp() {
        scheduler = Peers.create(peer, 2);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        scheduler.close();
    }

    /** One producer's live timeouts, oldest first. */
    @State(Scope.Thread)
    public static class Window {
        final Object[] live = new Object[WINDOW];
        int next;

        @TearDown(Level.Trial)
        public void cancelAll(ChurnBenchmark bench) {
            for (Object handle : live) {
                if (handle != null) {
                    bench.scheduler.cancel(handle);
                }
            }
        }
    }

    static boolean churn(SchedulerUnderTest scheduler, Window window) {
        Object handle = scheduler.schedule(BenchTask.NOOP, TIMEOUT);
        int i = window.next;
        Object oldest = window.live[i];
        window.live[i] = handle;
        window.next = (i + 1) & (WINDOW - 1);
        return oldest != null && scheduler.cancel(oldest);
    }

    @Benchmark
    @Threads(1)
    public boolean oneProducer(Window window) {
        return churn(scheduler, window);
    }

    @Benchmark
    @Threads(2)
    public boolean twoProducers(Window window) {
        return churn(scheduler, window);
    }
}
