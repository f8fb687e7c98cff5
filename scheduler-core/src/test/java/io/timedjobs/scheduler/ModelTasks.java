package io.timedjobs.scheduler;

import java.util.Comparator;
import java.util.SplittableRandom;

/** Tasks for the structures' model tests, with times and sequences set by the test. */
final class ModelTasks {

    /** The queue's order, for the models: by time difference (so across wrap-around), then sequence. */
    static final Comparator<ScheduledTask<?>> DUE_ORDER = (a, b) -> a == b ? 0 : ScheduledTask.isBefore(a, b) ? -1 : 1;

    /** Seed of every model test; another value explores other operations. */
    static final long SEED = Long.getLong("timedjobs.model.seed", 20261123L);

    private ModelTasks() {}

    static ScheduledTask<?> task(long time, int sequence) {
        ScheduledTask<?> task = new ScheduledTask<>(null, (Runnable) () -> {}, time);
        task.sequence = sequence;
        return task;
    }

    /**
     * Returns a base time for a run of operations: an ordinary one, or one near Long.MAX_VALUE so
     * that times after it wrap around to negative readings.
     */
    static long base(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> Long.MAX_VALUE - random.nextLong(1L << 20);
            case 1 -> Long.MIN_VALUE + random.nextLong(1L << 20);
            default -> random.nextLong();
        };
    }
}
