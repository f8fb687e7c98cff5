package io.timedjobs.benchmarks.cluster;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a scenario records of its tasks' executions: how often each ran and when it first started.
 * Any worker of any instance may call {@link #started}; the benchmark thread reads after the latch.
 */
final class Executions {

    private final Instant[] due;
    private final AtomicIntegerArray runs;
    private final AtomicLongArray firstStartMicros;
    private final CountDownLatch allStarted;
    private final Clock clock = Clock.systemUTC();

    Executions(Instant[] due) {
        this.due = due;
        this.runs = new AtomicIntegerArray(due.length);
        this.firstStartMicros = new AtomicLongArray(due.length);
        this.allStarted = new CountDownLatch(due.length);
    }

    /** Task {@code index} starts now; ids a peer cannot parse are the peer's bug, so they throw. */
    void started(int index) {
        long now = micros(clock.instant());
        if (runs.getAndIncrement(index) == 0) {
            firstStartMicros.set(index, now);
            allStarted.countDown();
        }
    }

    /**
     * Adds what another process recorded of task {@code index}: its runs there and its first start
     * there, in epoch microseconds; the earliest first start of all processes is kept.
     */
    void merge(int index, int runsThere, long firstStartThere) {
        if (runsThere <= 0) {
            return;
        }
        if (runs.getAndAdd(index, runsThere) == 0) {
            firstStartMicros.set(index, firstStartThere);
            allStarted.countDown();
        } else if (firstStartThere < firstStartMicros.get(index)) {
            firstStartMicros.set(index, firstStartThere);
        }
    }

    /** How often task {@code index} ran here. */
    int runs(int index) {
        return runs.get(index);
    }

    /** Task {@code index}'s first start here, in epoch microseconds; meaningless when it did not run. */
    long firstStartMicros(int index) {
        return firstStartMicros.get(index);
    }

    /** Tasks that started here at least once. */
    long startedCount() {
        return due.length - allStarted.getCount();
    }

    CountDownLatch allStarted() {
        return allStarted;
    }

    int tasks() {
        return due.length;
    }

    /** Executions beyond the first, over all tasks. */
    int duplicates() {
        int extra = 0;
        for (int i = 0; i < due.length; i++) {
            extra += Math.max(0, runs.get(i) - 1);
        }
        return extra;
    }

    /** Tasks that never started. */
    int lost() {
        int lost = 0;
        for (int i = 0; i < due.length; i++) {
            lost += runs.get(i) == 0 ? 1 : 0;
        }
        return lost;
    }

    /** Start minus due of each task that started, in microseconds (negative: early). */
    long[] latenessMicros() {
        long[] lateness = new long[due.length - lost()];
        int n = 0;
        for (int i = 0; i < due.length; i++) {
            if (runs.get(i) > 0) {
                lateness[n++] = firstStartMicros.get(i) - micros(due[i]);
            }
        }
        return lateness;
    }

    /** The latest first start, in epoch microseconds. */
    long lastStartMicros() {
        long last = Long.MIN_VALUE;
        for (int i = 0; i < due.length; i++) {
            last = Math.max(last, firstStartMicros.get(i));
        }
        return last;
    }

    /** The earliest first start, in epoch microseconds. */
    long firstStartMicros() {
        long first = Long.MAX_VALUE;
        for (int i = 0; i < due.length; i++) {
            if (runs.get(i) > 0) {
                first = Math.min(first, firstStartMicros.get(i));
            }
        }
        return first;
    }

    static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }
}
