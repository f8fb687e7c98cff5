package io.timedjobs.scheduler;

import io.timedjobs.scheduler.testsupport.TestDelays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A manual ticker whose next read by a chosen kind of thread can be held at a gate, to force a
 * race at the point where that thread reads the time. Thread-safe.
 */
final class GatedTicker implements Ticker {

    private final ManualTicker time = new ManualTicker();

    /** The gate armed for the next read, or null. */
    private final AtomicReference<Gate> armed = new AtomicReference<>();

    /** A one-time gate: the reader arrives, then waits until the test opens it. */
    static final class Gate {
        private final Thread excluded;
        private final CountDownLatch arrived = new CountDownLatch(1);
        private final CountDownLatch opened = new CountDownLatch(1);

        private Gate(Thread excluded) {
            this.excluded = excluded;
        }

        /** Waits until a thread is held at the gate. */
        void awaitArrival() throws InterruptedException {
            if (!arrived.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no thread reached the gate");
            }
        }

        /** Lets the held thread read the time as it is now. */
        void open() {
            opened.countDown();
        }
    }

    /** Holds the next read made by any thread other than the caller (a worker, in practice). */
    Gate holdNextReadByAnotherThread() {
        Gate gate = new Gate(Thread.currentThread());
        armed.set(gate);
        return gate;
    }

    void advance(long nanos) {
        time.advance(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public long read() {
        Gate gate = armed.get();
        if (gate != null && Thread.currentThread() != gate.excluded && armed.compareAndSet(gate, null)) {
            gate.arrived.countDown();
            try {
                if (!gate.opened.await(TestDelays.LONG.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("the gate was never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return time.read();
    }
}
