package io.timedjobs.scheduler.jdbc.durable;

import io.timedjobs.scheduler.LeaderFollowerScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe. The tasks this instance has claimed and put in its in-memory engine, by task id, until
 * they fire or leave.
 *
 * <p>Whoever removes an entry from {@link #entries} owns it: a firing timer runs its task only if its
 * own removal succeeds, so a cancel or a drain that removed it first always wins, and a task claimed
 * again (a new claim version of the same id) replaces its older entry.
 */
final class ClaimedQueue {

    private final Map<Long, Entry> entries = new ConcurrentHashMap<>();

    /**
     * Puts a task in {@code engine} to start after {@code delayNanos}; {@code run} is called with it
     * then, unless it left first. A rejection (the engine is shutting down) leaves it out.
     */
    void add(ClaimedTask task, long delayNanos, LeaderFollowerScheduler engine, Consumer<ClaimedTask> run) {
        Entry entry = new Entry(task);
        Entry previous = entries.put(task.id(), entry);
        if (previous != null) {
            previous.cancel();
        }
        try {
            entry.future = engine.schedule(
                    () -> {
                        if (entries.remove(task.id(), entry)) {
                            run.accept(task);
                        }
                    },
                    Math.max(0, delayNanos),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            entries.remove(task.id(), entry);
        }
    }

    /** Removes the entries whose task matches, cancelling their timers; returns their tasks. */
    List<ClaimedTask> removeIf(Predicate<ClaimedTask> condition) {
        List<ClaimedTask> removed = new ArrayList<>();
        entries.values().removeIf(entry -> {
            boolean match = condition.test(entry.task);
            if (match) {
                entry.cancel();
                removed.add(entry.task);
            }
            return match;
        });
        return removed;
    }

    /**
     * Removes up to {@code max} entries whose task matches, cancelling their timers; returns their
     * tasks. A timer firing meanwhile finds its entry gone and does not run it.
     */
    List<ClaimedTask> removeUpTo(Predicate<ClaimedTask> condition, int max) {
        List<ClaimedTask> removed = new ArrayList<>();
        for (Map.Entry<Long, Entry> each : entries.entrySet()) {
            if (removed.size() >= max) {
                break;
            }
            Entry entry = each.getValue();
            if (condition.test(entry.task) && entries.remove(each.getKey(), entry)) {
                entry.cancel();
                removed.add(entry.task);
            }
        }
        return removed;
    }

    /** Removes every entry, cancelling the timers. */
    void clear() {
        removeIf(task -> true);
    }

    int size() {
        return entries.size();
    }

    /** One queued task; its future is set right after it is queued and only frees it early on cancel. */
    private static final class Entry {
        private final ClaimedTask task;
        private volatile @Nullable ScheduledFuture<?> future;

        Entry(ClaimedTask task) {
            this.task = task;
        }

        void cancel() {
            ScheduledFuture<?> scheduled = future;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
    }
}
