package io.timedjobs.benchmarks;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * A task that is both a {@link Runnable} and a Netty {@link TimerTask}, so that the wheel timer can
 * be handed the very same object as every other peer, with no adapter allocated per task.
 */
public abstract class BenchTask implements Runnable, TimerTask {

    /** A task that does nothing; the shared task of the throughput and memory scenarios. */
    public static final BenchTask NOOP = new BenchTask() {
        @Override
        public void run() {}
    };

    @Override
    public final void run(Timeout timeout) {
        run();
    }
}
