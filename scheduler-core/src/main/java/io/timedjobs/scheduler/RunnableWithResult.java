package io.timedjobs.scheduler;

/**
 * Made by the pool for {@code submit(Runnable, result)}; run by one worker at a time, like every
 * task: a one-shot Runnable that reports a given result.
 */
final class RunnableWithResult<V> extends ScheduledTask<V> {

    private final V result;

    RunnableWithResult(Owner pool, Runnable work, V result, long time) {
        super(pool, work, time);
        this.result = result;
    }

    @Override
    V invoke(Object w) {
        ((Runnable) w).run();
        return result;
    }
}
