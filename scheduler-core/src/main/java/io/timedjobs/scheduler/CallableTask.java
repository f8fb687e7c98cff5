package io.timedjobs.scheduler;

import java.util.concurrent.Callable;

/**
 * Made by the pool for {@code schedule(Callable, ...)} and {@code submit(Callable)}; run by one
 * worker at a time, like every task: a one-shot task computing its result with a Callable.
 */
final class CallableTask<V> extends ScheduledTask<V> {

    CallableTask(Owner pool, Callable<V> work, long time) {
        super(pool, work, time);
    }

    @Override
    @SuppressWarnings("unchecked")
    V invoke(Object w) throws Exception {
        return ((Callable<V>) w).call();
    }
}
