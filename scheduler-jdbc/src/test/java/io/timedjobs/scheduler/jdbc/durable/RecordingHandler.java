package io.timedjobs.scheduler.jdbc.durable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Test handler; any thread. Counts the runs of each key and keeps every task it ran. */
class RecordingHandler implements DurableTaskHandler<String> {

    final Map<String, AtomicInteger> runs;
    final List<DurableTask<String>> tasks = new CopyOnWriteArrayList<>();

    /** Start minus fire instant of each run, in microseconds, on this JVM's clock. */
    final List<Long> latenessMicros = new CopyOnWriteArrayList<>();

    RecordingHandler() {
        this(new ConcurrentHashMap<>());
    }

    /** Shares the counts with other handlers, one per instance. */
    RecordingHandler(Map<String, AtomicInteger> runs) {
        this.runs = runs;
    }

    @Override
    public Class<String> payloadType() {
        return String.class;
    }

    @Override
    public void handle(DurableTask<String> task) throws Exception {
        latenessMicros.add(Duration.between(task.fireAt(), Instant.now()).toNanos() / 1000);
        tasks.add(task);
        runs.computeIfAbsent(task.key(), k -> new AtomicInteger()).incrementAndGet();
    }

    int runsOf(String key) {
        AtomicInteger count = runs.get(key);
        return count == null ? 0 : count.get();
    }

    int totalRuns() {
        return runs.values().stream().mapToInt(AtomicInteger::get).sum();
    }
}
