package io.timedjobs.scheduler.spring;

import io.timedjobs.scheduler.ExecutionListener;
import java.util.ArrayList;
import java.util.List;

/**
 * Called by worker threads, built once at initialization: tells each of a fixed list of listeners
 * of every execution, in order, without allocating.
 */
final class CombinedListener implements ExecutionListener {

    private final ExecutionListener[] listeners;

    private CombinedListener(ExecutionListener[] listeners) {
        this.listeners = listeners;
    }

    /** Returns a listener that calls {@code first} in order, then {@code last}. */
    static ExecutionListener of(List<ExecutionListener> first, ExecutionListener last) {
        List<ExecutionListener> all = new ArrayList<>(first);
        all.add(last);
        return new CombinedListener(all.toArray(new ExecutionListener[0]));
    }

    @Override
    public void onExecution(long latenessNanos, long durationNanos, Outcome outcome) {
        for (ExecutionListener listener : listeners) {
            listener.onExecution(latenessNanos, durationNanos, outcome);
        }
    }

    @Override
    public void onExecution(Object work, long latenessNanos, long durationNanos, Outcome outcome) {
        for (ExecutionListener listener : listeners) {
            listener.onExecution(work, latenessNanos, durationNanos, outcome);
        }
    }
}
